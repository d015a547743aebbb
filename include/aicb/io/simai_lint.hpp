// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#pragma once

/// @file
/// Checks a SimAI workload file for everything SimAI 1.7 silently misreads or crashes on
/// (docs/lint.md has the list): a missing or extra field (SimAI shifts every later record), a
/// non-integer, negative or decimal number, an unknown or misspelled policy or collective (with the
/// nearest valid name), lower-case and `BROADCAST` tokens (silently dropped), unknown group suffixes,
/// a wrong record count (ghost layers), missing header keys (SIGFPE in the analytical backend), a key
/// without a value (SIGSEGV), `pp_comm` out of `stoi`'s range or inconsistent with `pp`, messages
/// above 16 GiB, compute times that lose a microsecond to SimAI's float scaling, `all_gpus` that TP·PP
/// does not divide.
///
/// The file streams: memory does not grow with its size. aicb::fix_simai rewrites what can be fixed
/// mechanically (a legacy header without `ep pp vpp ga all_gpus pp_comm`, a wrong record count).

#include <aicb/config.hpp>
#include <aicb/detail/edit_distance.hpp>
#include <aicb/error.hpp>
#include <aicb/io/atomic_file.hpp>
#include <aicb/io/detail/simai_def.hpp>
#include <aicb/io/simai_reader.hpp>
#include <aicb/json_writer.hpp>
#include <aicb/version.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

AICB_BEGIN_NAMESPACE

enum class lint_severity : std::uint8_t { error, warning };

/// One problem, at a 1-based position.
struct lint_diagnostic {
  std::uint64_t line = 0, column = 0;
  lint_severity severity = lint_severity::error;
  std::string message;
};

struct lint_options {
  std::size_t max_diagnostics = 200;  ///< diagnostics kept per file (all are counted)
};

/// The outcome of linting one file.
struct lint_result {
  std::vector<lint_diagnostic> diagnostics;  ///< the first max_diagnostics, in file order
  std::uint64_t errors = 0, warnings = 0;
  std::uint64_t records = 0;              ///< records read
  std::optional<std::uint64_t> declared;  ///< the count line 2 declares
  std::vector<std::string> missing_keys;  ///< header keys SimAI needs that are absent
  bool records_well_formed = true;        ///< every record had its fields (a count fix is safe)
};

namespace detail {

class simai_linter {
 public:
  simai_linter(const std::string& path, lint_options options) : in_(path), options_(options) {}

  lint_result run() {
    header();
    if (!policy_ok_) return std::move(result_);
    count();
    records();
    return std::move(result_);
  }

 private:
  void report(std::uint64_t line, std::uint64_t column, lint_severity s, std::string message) {
    (s == lint_severity::error ? result_.errors : result_.warnings)++;
    if (result_.diagnostics.size() < options_.max_diagnostics)
      result_.diagnostics.push_back({line, column, s, std::move(message)});
  }
  void error(const simai_token& t, std::string message) {
    report(t.line, t.column, lint_severity::error, std::move(message));
  }
  void warning(const simai_token& t, std::string message) {
    report(t.line, t.column, lint_severity::warning, std::move(message));
  }

  // ---- line 1 -------------------------------------------------------------------------------
  void header() {
    const auto line = in_.line();
    if (!line || line->text.find_first_not_of(" \t\r\v\f") == std::string_view::npos) {
      report(1, 1, lint_severity::error, "empty header line: expected a parallelism policy and its keys");
      policy_ok_ = false;
      return;
    }
    const simai_header_line_fields h = split_header(*line);
    const std::string_view policy = h.policy.text;
    custom_ = policy == "HYBRID_CUSTOMIZED";
    const bool known =
        std::find(simai_policies.begin(), simai_policies.end(), policy) != simai_policies.end();
    transformer_ = policy == "HYBRID_TRANSFORMER" || policy == "HYBRID_TRANSFORMER_FWD_IN_BCKWD";
    if (!known) {
      std::string upper(policy);
      for (char& c : upper)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      const auto near = nearest(upper, simai_policies);
      error(h.policy, "unknown parallelism policy '" + std::string(policy) + "': SimAI exits" +
                          (near.empty() ? std::string() : "; did you mean " + std::string(near) + "?"));
      policy_ok_ = false;
      return;
    }
    if (!transformer_)
      error(h.policy, "policy " + std::string(policy) +
                          ": SimAI-Analytical reads no TP/PP/EP sizes for it and dies with SIGFPE; use "
                          "HYBRID_TRANSFORMER_FWD_IN_BCKWD");

    std::vector<std::string_view> seen;
    std::uint64_t tp = 0, pp = 0, all_gpus = 0, pp_comm = 0;
    bool have_pp_comm = false;
    for (const auto& e : h.entries) {
      std::string_view key = e.key.text;
      if (key == "pp_comm") key = "pp_comm:";
      if (std::find(seen.begin(), seen.end(), key) != seen.end())
        warning(e.key, "repeated key " + std::string(key) + ": SimAI uses the last one");
      seen.push_back(key);
      if (!e.value) {
        error(e.key,
              "key " + std::string(key) + " has no value: SimAI reads past the end of the header (SIGSEGV)");
        continue;
      }
      const simai_token& v = *e.value;
      // SimAI reads every value with std::stoi: leading digits, the rest ignored.
      std::size_t digits = 0;
      while (digits < v.text.size() && std::isdigit(static_cast<unsigned char>(v.text[digits])))
        ++digits;
      std::uint64_t value = 0;
      if (digits == 0 || !grammar::simai::parse_unsigned(v.text.substr(0, digits), value)) {
        error(v, "expected a non-negative integer for " + std::string(key) + ", found '" +
                     std::string(v.text) + "' (SimAI's stoi throws: abort)");
        continue;
      }
      if (digits < v.text.size())
        warning(v, std::string(key) + " " + std::string(v.text) + " is read as " + std::to_string(value) +
                       " (SimAI's stoi stops at '" + std::string(1, v.text[digits]) +
                       "'); write the integer");
      if (key == "pp_comm:") {
        have_pp_comm = true;
        pp_comm = value;
      }
      if (value > simai_max_int) {
        error(v, std::string(key) + " " + std::string(v.text.substr(0, 40)) +
                     " exceeds 2^31-1: SimAI reads it with stoi, which throws out_of_range (abort)");
        continue;
      }
      // The analytical report divides integers by TP (for DP), PP and EP: 0 is SIGFPE. A zero ga, vpp or
      // all_gpus only triggers SimAI's mismatch warning (and a 0/0 pipeline bubble).
      const bool divisor = key == "model_parallel_NPU_group:" || key == "ep:" || key == "pp:";
      const bool warned = key == "vpp:" || key == "ga:" || key == "all_gpus:";
      if (divisor && value == 0)
        error(v, std::string(key) + " 0: SimAI divides by it (SIGFPE in the analytical report)");
      if (warned && value == 0)
        warning(v, std::string(key) +
                       " 0: SimAI warns that the workload format mismatches; the file describes no "
                       "micro batch or layer");
      if (key == "model_parallel_NPU_group:") tp = value;
      if (key == "pp:") pp = value;
      if (key == "all_gpus:") all_gpus = value;
      if (key == "ep:") ep_ = value;
      if (key == "checkpoints:" && value > 1)
        warning(v, "checkpoints lists " + std::to_string(value) +
                       " layers: SimAI registers only the first (its parser re-reads the same token)");
    }
    for (const simai_token& other : h.others) {
      std::vector<std::string_view> keys(simai_header_keys.begin(), simai_header_keys.end() - 1);
      const auto near = nearest(other.text, keys);
      const bool number = other.text.find_first_not_of("0123456789") == std::string_view::npos;
      if (!number || !near.empty())
        warning(other, "'" + std::string(other.text) + "' is not a header key SimAI reads; it is ignored" +
                           (near.empty() ? std::string() : "; did you mean " + std::string(near) + "?"));
    }
    if (transformer_) {
      for (std::string_view key : {"model_parallel_NPU_group:", "ep:", "pp:", "vpp:", "ga:", "all_gpus:"})
        if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
          result_.missing_keys.emplace_back(key);
          error(h.policy,
                "missing " + std::string(key) +
                    " SimAI leaves it uninitialised and the analytical report divides by it (SIGFPE); fix: "
                    "aicb lint --fix --world-size N");
        }
      if (!have_pp_comm) result_.missing_keys.emplace_back("pp_comm:");
      if (pp > 1 && pp_comm == 0)
        warning(h.policy,
                "pp: " + std::to_string(pp) + " with pp_comm 0: SimAI warns and models no pipeline traffic");
      if (pp == 1 && pp_comm != 0)
        warning(h.policy,
                "pp: 1 with pp_comm " + std::to_string(pp_comm) + ": SimAI warns (no pipeline to send over)");
      tp_ = tp;
      pp_ = pp;
      gpus_ = all_gpus;
      if (tp > 0 && pp > 0 && all_gpus > 0 && all_gpus % (tp * pp) != 0)
        error(h.policy, "all_gpus " + std::to_string(all_gpus) + " is not a multiple of TP x PP = " +
                            std::to_string(tp * pp) + ": the layout is inconsistent");
    }
  }

  // ---- line 2 -------------------------------------------------------------------------------
  void count() {
    const auto line = in_.line();
    if (!line) {
      report(2, 1, lint_severity::error, "missing line 2: the record count (SimAI's stoi aborts)");
      return;
    }
    const std::string_view text = line->text;
    std::size_t skip = 0;
    while (skip < text.size() && (text[skip] == ' ' || text[skip] == '\t'))
      ++skip;
    std::size_t digits = skip;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
      ++digits;
    std::uint64_t n = 0;
    if (digits == skip || !grammar::simai::parse_unsigned(text.substr(skip, digits - skip), n)) {
      report(2, skip + 1, lint_severity::error,
             "expected the record count (an integer) on line 2, found '" +
                 std::string(text.substr(skip, 40)) + "' (SimAI's stoi aborts)");
      return;
    }
    if (text.find_first_not_of(" \t", digits) != std::string_view::npos)
      report(2, digits + 1, lint_severity::warning, "text after the record count is ignored by SimAI");
    if (n > simai_max_int)
      report(2, skip + 1, lint_severity::error,
             "record count " + std::to_string(n) +
                 " exceeds 2^31-1: SimAI reads it with stoi, which throws out_of_range (abort)");
    result_.declared = n;
  }

  // ---- records ------------------------------------------------------------------------------
  // Field kinds of a record, in order.
  enum class field { name, placeholder, compute, comm, size, update, custom };
  static constexpr field layout[13] = {field::name,    field::placeholder, field::compute, field::comm,
                                       field::size,    field::compute,     field::comm,    field::size,
                                       field::compute, field::comm,        field::size,    field::update,
                                       field::custom};
  static constexpr const char* field_names[13] = {"name",
                                                  "placeholder",
                                                  "forward compute time (ns)",
                                                  "forward communication",
                                                  "forward size (bytes)",
                                                  "input-gradient compute time (ns)",
                                                  "input-gradient communication",
                                                  "input-gradient size (bytes)",
                                                  "weight-gradient compute time (ns)",
                                                  "weight-gradient communication",
                                                  "weight-gradient size (bytes)",
                                                  "update time (ns)",
                                                  "parallelism of the record"};

  void records() {
    const std::size_t fields = custom_ ? 13 : 12;
    std::optional<simai_token> pending;  // a token already read that starts the next record
    std::uint64_t previous_end_line = 2, spanning = 0, imprecise = 0;
    std::optional<simai_token> first_imprecise;
    while (true) {
      simai_token name;
      if (pending) {
        name = *pending;
        pending.reset();
      } else if (auto t = in_.token()) {
        name = *t;
      } else {
        break;
      }
      name_text_.assign(name.text);  // kept for messages: later tokens may move the buffer
      const std::string& name_text = name_text_;
      ++result_.records;
      if (result_.records > 1 && name.line == previous_end_line) {
        // A record name is a word; a number or a communication type here is a field too many.
        if (!valid(field::compute, name.text) && !valid(field::comm, name.text) &&
            !valid(field::placeholder, name.text)) {
          warning(name,
                  "record '" + name_text.substr(0, 40) +
                      "' starts on the line of the previous one: SimAI reads it, but a record per line is "
                      "expected");
        } else {
          error(name,
                "extra field '" + name_text.substr(0, 40) +
                    "' after a complete record: SimAI reads it as the next record's name and shifts every "
                    "later record");
          result_.records_well_formed = false;
          --result_.records;
          skip_line(name.line, pending);
          continue;
        }
      }
      std::uint64_t last_line = name.line;
      bool spans = false;
      for (std::size_t f = 1; f < fields; ++f) {
        const auto t = in_.token();
        if (!t) {
          report(name.line, name.column, lint_severity::error,
                 "record '" + name_text.substr(0, 40) + "' ends after " + std::to_string(f) + " of its " +
                     std::to_string(fields) + " fields (missing " + field_names[f] + ")");
          result_.records_well_formed = false;
          break;
        }
        if (t->line != last_line) spans = true;
        // A field that cannot be what it should, at the start of a line: the record was short, and
        // this token starts the next one.
        if (t->line != last_line && !valid(layout[f], t->text)) {
          report(name.line, name.column, lint_severity::error,
                 "record '" + name_text.substr(0, 40) + "' on line " + std::to_string(name.line) + " has " +
                     std::to_string(f) + " of its " + std::to_string(fields) + " fields (missing " +
                     field_names[f] + "): SimAI reads the next line into it and misreads every later record");
          result_.records_well_formed = false;
          pending = *t;
          spans = false;
          break;
        }
        check(layout[f], f, *t, imprecise, first_imprecise);
        last_line = t->line;
      }
      if (spans) ++spanning;
      previous_end_line = last_line;
    }
    if (spanning)
      report(3, 1, lint_severity::warning,
             std::to_string(spanning) +
                 " record(s) span lines: SimAI reads them (its reader is token-based), but a "
                 "record per line is what tools and people expect");
    if (sized_none_)
      report(first_sized_none_->line, first_sized_none_->column, lint_severity::warning,
             std::to_string(sized_none_) +
                 " NONE column(s) carry a size (as aicb writes them): SimAI ignores it");
    if (imprecise)
      report(first_imprecise->line, first_imprecise->column, lint_severity::warning,
             std::to_string(imprecise) +
                 " compute time(s) lose a microsecond or more to SimAI's float scaling (above 2^24 ns it "
                 "rounds them)");
    if (forward_times_ > 0 && forward_ones_ == forward_times_)
      report(3, 1, lint_severity::warning,
             "every forward compute time is 1 ns (aicb's placeholder without a profile): SimAI simulates the "
             "communication only");
    if (result_.declared && *result_.declared != result_.records) {
      const std::uint64_t d = *result_.declared, n = result_.records;
      report(2, 1, lint_severity::error,
             d > n
                 ? "line 2 declares " + std::to_string(d) + " records but the file has " + std::to_string(n) +
                       ": SimAI invents " + std::to_string(d - n) + " ghost layers; fix: aicb lint --fix"
                 : "line 2 declares " + std::to_string(d) + " records but the file has " + std::to_string(n) +
                       ": SimAI ignores the last " + std::to_string(n - d) + "; fix: aicb lint --fix");
    }
  }

  void skip_line(std::uint64_t line, std::optional<simai_token>& pending) {
    while (auto t = in_.token())
      if (t->line != line) {
        pending = *t;
        return;
      }
  }

  static bool valid(field f, std::string_view text) {
    std::uint64_t u = 0;
    std::int64_t s = 0;
    grammar::simai::comm_token c;
    switch (f) {
      case field::placeholder:
        return grammar::simai::parse_signed(text, s);
      case field::compute:
      case field::size:
      case field::update:
        return grammar::simai::parse_unsigned(text, u);
      case field::comm:
        return grammar::simai::parse_comm(text, c);
      default:
        return true;
    }
  }

  void check(field f, std::size_t index, const simai_token& t, std::uint64_t& imprecise,
             std::optional<simai_token>& first_imprecise) {
    const std::string_view text = t.text;
    const auto shown = [&] { return std::string(text.substr(0, 40)); };
    switch (f) {
      case field::placeholder: {
        std::int64_t s = 0;
        if (!grammar::simai::parse_signed(text, s))
          error(t, "expected the placeholder integer (-1), found '" + shown() +
                       "': a field is missing or extra");
        return;
      }
      case field::compute:
      case field::size:
      case field::update: {
        std::uint64_t value = 0;
        if (grammar::simai::parse_unsigned(text, value)) {
          if (f == field::size && comm_) size_on_group(t, index, value);
          if (f == field::compute && index == 2) {  // the forward column's time
            ++forward_times_;
            if (value == 1) ++forward_ones_;
          }
          if (f == field::compute && value > static_cast<std::uint64_t>(simai_max_compute_time))
            error(t, std::string(field_names[index]) + " " + shown() + " is above " +
                         std::to_string(simai_max_compute_time) +
                         " ns: SimAI truncates compute times to 32 bits and exits 0 with an empty result "
                         "(verified on SimAI-Analytical); split the computation over records");
          if (f == field::size && value > 0 && comm_none_ && !sized_none_++) first_sized_none_ = t;
          // SimAI scales every value in float: above 2^24 it rounds. That matters for a compute time
          // once the error reaches a microsecond; for byte counts it never does.
          if (f == field::compute && value > (1ULL << 24)) {
            const float scaled = static_cast<float>(value);
            // Near 2^64 the float rounds up to 2^64 itself, which no uint64 holds.
            const std::uint64_t error = scaled >= 18446744073709551616.0f ? ~std::uint64_t{0} - value + 1
                                        : static_cast<std::uint64_t>(scaled) > value
                                            ? static_cast<std::uint64_t>(scaled) - value
                                            : value - static_cast<std::uint64_t>(scaled);
            if (error >= 1000 && !imprecise++) first_imprecise = t;
          }
          return;
        }
        std::int64_t s = 0;
        if (grammar::simai::parse_signed(text, s))
          error(
              t,
              std::string(field_names[index]) + " is negative (" + shown() +
                  "): SimAI reads it as an unsigned 64-bit number and the result is undefined (observed: 0)");
        else if (text.find('.') != std::string_view::npos &&
                 std::isdigit(static_cast<unsigned char>(text.front())))
          error(
              t,
              std::string(field_names[index]) + " " + shown() +
                  " has a decimal part: SimAI's integer reader stops at '.', which shifts every later field; "
                  "round it");
        else
          error(t, "expected " + std::string(field_names[index]) + ", found '" + shown() +
                       "': a field is missing or extra, and SimAI misreads from here on");
        return;
      }
      case field::comm:
        comm(t, index);
        return;
      default:
        return;
    }
  }

  // A size in a column whose collective SimAI times: the rules that depend on the group SimAI
  // charges it to (simai_format.hpp cites SimAI for each).
  void size_on_group(const simai_token& t, std::size_t index, std::uint64_t size) {
    const simai_column column = index == 4   ? simai_column::forward
                                : index == 7 ? simai_column::input_grad
                                             : simai_column::weight_grad;
    const simai_group group = simai_group_of(comm_->suffix, column);
    if (simai_uses_ratio_table(comm_->kind, group) && size > simai_max_message)
      error(t, std::string(field_names[index]) + " " + std::to_string(size) + " exceeds 16 GiB on " +
                   (group == simai_group::ep ? "an EP" : "a TP") +
                   " collective SimAI times through its efficiency table, which ends there: it drops the "
                   "collective and truncates its output (exit status 0)");
    if (group == simai_group::ep && tp_ > 0 && ep_ > 1 && gpus_ > 0 && tp_ * ep_ > gpus_ && !ep_beyond_++)
      warning(t, "SimAI places an _EP collective on TP x ep = " + std::to_string(tp_ * ep_) +
                     " GPUs, more than all_gpus " + std::to_string(gpus_) +
                     ": it simulates an all-to-all over GPUs the job does not have (experts over every GPU "
                     "with TP > 1 are written ep: all_gpus / TP)");
    const std::uint64_t ranks = simai_group_ranks(group, column, tp_, ep_, pp_, gpus_);
    if (tp_ > 0 && simai_single_gpu_garbage(group, ranks, size))
      error(t,
            "a collective of " + std::to_string(size) +
                " bytes over a TP group of one GPU (model_parallel_NPU_group: 1): SimAI's bus bandwidth "
                "for it is -1 and the collective's time wraps to ~1.8e16 us, silently; drop the collective");
  }

  void comm(const simai_token& t, std::size_t index) {
    const std::string_view text = t.text;
    grammar::simai::comm_token c;
    comm_none_ = false;
    comm_.reset();
    const bool weight = index == 9;
    if (grammar::simai::parse_comm(text, c)) {
      comm_none_ = c.kind == collective::none;
      if (!comm_none_) comm_ = c;
      if (weight && c.suffix == 1)
        warning(
            t,
            std::string(text) +
                " in the weight-gradient column: SimAI sizes _EP there by the DP group; use _DP_EP or none");
      if (!weight && c.suffix == 2)
        warning(t, std::string(text) + " in a forward/input-gradient column: SimAI sizes it by the TP group");
      return;
    }
    const std::string shown(text.substr(0, 40));
    comm_none_ = false;  // reported below; its size needs no second message
    std::string upper(text);
    for (char& ch : upper)
      ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    grammar::simai::comm_token uc;
    static constexpr std::string_view valid_tokens[] = {
        "NONE",          "ALLREDUCE",       "ALLGATHER",       "REDUCESCATTER",
        "ALLTOALL",      "ALLREDUCE_EP",    "ALLGATHER_EP",    "REDUCESCATTER_EP",
        "ALLTOALL_EP",   "ALLREDUCE_DP_EP", "ALLGATHER_DP_EP", "REDUCESCATTER_DP_EP",
        "ALLTOALL_DP_EP"};
    if (upper != text && grammar::simai::parse_comm(upper, uc)) {
      error(t, "'" + shown + "' is lower case: SimAI matches names exactly and silently drops it; write " +
                   upper);
    } else if (upper == "BROADCAST" || upper.rfind("BROADCAST", 0) == 0) {
      error(t, "'" + shown + "': SimAI parses no broadcast, so the communication is silently dropped");
    } else if (upper.rfind("ALLREDUCEALLTOALL", 0) == 0) {
      error(t,
            "'" + shown + "': SimAI reads it as an all-reduce on no group (0 us); split it into two records");
    } else if (const auto kind_end = known_prefix(upper); kind_end != 0) {
      error(t, "'" + shown + "': unknown group suffix '" + std::string(text.substr(kind_end)) +
                   "': SimAI runs it on no group (0 us); use none, _EP or _DP_EP");
    } else {
      const auto near = nearest(upper, valid_tokens);
      error(t, "unknown communication type '" + shown + "': SimAI silently drops it" +
                   (near.empty() ? std::string() : "; did you mean " + std::string(near) + "?"));
    }
  }
  static std::size_t known_prefix(std::string_view upper) {
    for (std::string_view k : {"REDUCESCATTER", "ALLREDUCE", "ALLGATHER", "ALLTOALL"})
      if (upper.rfind(k, 0) == 0) return k.size();
    return 0;
  }

  simai_tokenizer in_;
  lint_options options_;
  lint_result result_;
  bool policy_ok_ = true, transformer_ = false, custom_ = false, comm_none_ = false;
  std::optional<grammar::simai::comm_token> comm_;      // the collective of the column being read
  std::uint64_t tp_ = 0, ep_ = 0, pp_ = 0, gpus_ = 0;   // header values (0 when absent)
  std::uint64_t forward_times_ = 0, forward_ones_ = 0;  // forward compute times read, and those of 1 ns
  std::uint64_t ep_beyond_ = 0;                         // EP collectives SimAI spreads beyond all_gpus
  std::string name_text_;
  std::uint64_t sized_none_ = 0;
  std::optional<simai_token> first_sized_none_;
};

}  // namespace detail

/// Lints one SimAI workload file. Throws io_error if it cannot be read.
[[nodiscard]] inline lint_result lint_simai(const std::string& path, lint_options options = {}) {
  return detail::simai_linter(path, options).run();
}

/// What fix_simai changed.
struct simai_fix {
  std::vector<std::string> changes;  ///< one line per change; empty when nothing needed fixing
};

/// Rewrites, atomically, what can be fixed mechanically: header keys a legacy aicb file lacks (`ep pp
/// vpp ga all_gpus pp_comm`: one stage, no expert parallelism, all_gpus = `world_size`) and a record
/// count that does not match the records. The fixed file goes to `output`, which must not be the
/// input; with no output the input is rewritten in place. Never writes a value lint rejects: throws
/// config_error when a key is missing and no world_size is given, when world_size is not a value
/// SimAI can read or TP x PP does not divide it, when the records themselves are malformed (no count
/// can be trusted), or when there are more records than SimAI can count.
inline simai_fix fix_simai(const std::string& path, std::optional<std::uint64_t> world_size,
                           const std::string& output = {}) {
  const lint_result lint = lint_simai(path);
  simai_fix fix;
  simai_tokenizer in(path);
  const auto header_line = in.line();
  const auto count_line = in.line();
  if (!header_line || !count_line) AICB_THROW(config_error("file", path, "no header and count to fix"));
  std::string header(header_line->text);
  std::string additions;
  for (const std::string& key : lint.missing_keys) {
    std::string value;
    if (key == "all_gpus:") {
      if (!world_size)
        AICB_THROW(
            config_error("world_size", "(none)", "the header lacks all_gpus: give --world-size to add it"));
      // Never write what lint rejects: a value SimAI's stoi cannot read, or a world TP x PP does not divide.
      if (*world_size == 0 || *world_size > simai_max_int)
        AICB_THROW(config_error("world_size", std::to_string(*world_size),
                                "all_gpus must be between 1 and 2^31-1 (SimAI reads it with stoi)"));
      std::uint64_t tp = 0, pp = 1;
      const simai_header_line_fields present = split_header(*header_line);
      for (const auto& e : present.entries) {
        std::uint64_t v = 0;
        if (!e.value || !detail::grammar::simai::parse_unsigned(e.value->text, v) || v == 0 ||
            v > simai_max_int)
          continue;
        if (e.key.text == "model_parallel_NPU_group:") tp = v;
        if (e.key.text == "pp:") pp = v;
      }
      if (tp > 0 && *world_size % (tp * pp) != 0)
        AICB_THROW(config_error("world_size", std::to_string(*world_size),
                                "all_gpus must be a multiple of TP x PP = " + std::to_string(tp * pp)));
      value = std::to_string(*world_size);
    } else if (key == "pp_comm:") {
      value = "0";
    } else if (key == "ep:" || key == "pp:" || key == "vpp:" || key == "ga:") {
      value = "1";
    } else {
      AICB_THROW(config_error("header", key, "cannot be guessed; add it by hand"));
    }
    additions += " " + key + " " + value;
  }
  if (!additions.empty())
    fix.changes.push_back("header: added" + additions +
                          " (one pipeline stage, no expert parallelism; check them)");
  std::string count(count_line->text);
  if (lint.declared && *lint.declared != lint.records) {
    if (!lint.records_well_formed)
      AICB_THROW(config_error("records", path, "records are malformed; fix them before the count"));
    if (lint.records > simai_max_int)
      AICB_THROW(
          config_error("records", std::to_string(lint.records),
                       "SimAI reads at most 2^31-1 records (its count goes through stoi): split the file"));
    fix.changes.push_back("line 2: record count " + std::to_string(*lint.declared) + " -> " +
                          std::to_string(lint.records));
    count = std::to_string(lint.records);
  }
  if (fix.changes.empty()) return fix;
  // Copy the rest of the file unchanged.
  // In place only when asked (no output); otherwise the output must not be the input.
  const std::string target = output.empty() ? path : output;
  atomic_file out(target, output.empty() ? output_options{} : output_options{{path}});
  out.write(header + additions + "\n" + count + "\n");
  std::FILE* source = std::fopen(path.c_str(), "rb");
  if (!source) AICB_THROW(io_error(path, "cannot reopen the file"));
  // Skip the first two lines, then stream the rest.
  int newlines = 0, c = 0;
  while (newlines < 2 && (c = std::fgetc(source)) != EOF)
    if (c == '\n') ++newlines;
  std::vector<char> buffer(1 << 20);
  std::size_t got = 0;
  while ((got = std::fread(buffer.data(), 1, buffer.size(), source)) > 0)
    out.write(std::string_view(buffer.data(), got));
  std::fclose(source);
  out.commit();
  return fix;
}

/// One file of a lint run: its result, or why it could not be checked.
struct linted_file {
  std::string file;
  std::optional<lint_result> result{};  ///< none: the file could not be read
  std::string failure{};
};

/// Every file's result as one document, `aicb.lint/1` (docs/schemas/lint.schema.json): what
/// `aicb lint --json` prints.
[[nodiscard]] inline std::string lint_json(const std::vector<linted_file>& files) {
  json_writer w;
  w.begin_object().member("schema", "aicb.lint/1").member("aicb_version", AICB_VERSION_STRING);
  w.key("files").begin_array();
  for (const linted_file& f : files) {
    w.begin_object().member("file", f.file);
    if (!f.result) {
      w.member("failure", f.failure).end_object();
      continue;
    }
    const lint_result& r = *f.result;
    w.member("records", r.records).member("errors", r.errors).member("warnings", r.warnings);
    w.key("diagnostics").begin_array();
    for (const lint_diagnostic& d : r.diagnostics) {
      w.begin_object().member("line", d.line).member("column", d.column);
      w.member("severity", d.severity == lint_severity::error ? "error" : "warning");
      w.member("message", d.message).end_object();
    }
    w.end_array().end_object();
  }
  w.end_array().end_object();
  return w.str() + "\n";
}

AICB_END_NAMESPACE
