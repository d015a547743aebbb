// aicb — LLM training workloads for cluster and network simulators.
// SPDX-License-Identifier: Apache-2.0
#include <aicb/compute/cluster.hpp>

#include <catch2/catch.hpp>

#include <string>

TEST_CASE("cluster: presets name real machines with their GPU, NVLink and NICs", "[compute][cluster]") {
  for (const aicb::cluster_spec& c : aicb::cluster_presets) {
    INFO(c.name);
    CHECK(aicb::find_gpu(c.gpu) != nullptr);
    CHECK(c.gpus_per_node > 0);
    CHECK(c.nvlink_gb_per_s > c.nic_gb_per_s);
    CHECK(&aicb::cluster_preset(c.name) == &c);
  }
  const aicb::cluster_spec& a100 = aicb::cluster_preset("DGX-A100");  // any case
  CHECK(a100.gpu == "A100");
  CHECK(a100.nvlink_gb_per_s == 240);
  CHECK(a100.nic_gb_per_s == 23.5);
  CHECK(a100.nic_gb_per_s_per_gpu() == 23.5);  // one NIC per GPU
  const aicb::cluster_spec& dgx2 = aicb::cluster_preset("dgx2h");
  CHECK(dgx2.nic_gb_per_s_per_gpu() == Approx(11.7 / 2));  // 8 NICs for 16 GPUs
  CHECK(a100.node_of(7) == 0);
  CHECK(a100.node_of(8) == 1);
  CHECK(aicb::cluster_for_gpu("NVIDIA H100 80GB HBM3") == &aicb::cluster_preset("dgx-h100"));
  CHECK(aicb::cluster_for_gpu("L40S") == nullptr);
  // The H20's server: the H100's NVSwitch and NICs, and SimAI's own H20 type.
  const aicb::cluster_spec& h20 = aicb::cluster_preset("hgx-h20");
  CHECK(aicb::cluster_for_gpu("NVIDIA H20") == &h20);
  CHECK(aicb::simai_command_line(h20, 16, "w.txt").find("-g_type H20") != std::string::npos);
  CHECK_THROWS_WITH(aicb::cluster_preset("dgx-z9"),
                    Catch::Contains("cluster = dgx-z9") && Catch::Contains("dgx-h100"));
}

TEST_CASE("cluster: a GB200 NVL72 rack is one NVLink domain of 72 GPUs, a NIC each", "[compute][cluster]") {
  const aicb::cluster_spec& rack = aicb::cluster_preset("gb200-nvl72");
  CHECK(rack.gpu == "GB200");
  CHECK(rack.node_of(71) == 0);  // a job of 64 or 72 GPUs talks over NVLink only
  CHECK(rack.node_of(72) == 1);
  CHECK(rack.nic_gb_per_s_per_gpu() == 48.5);
  CHECK(rack.nvlink_fits == nullptr);  // the DGX B200's fits are 8 GPUs' and not the rack's
  CHECK(aicb::choose_cluster("GB200", "").name == "gb200-nvl72");
  CHECK(aicb::simai_command_line(rack, 144, "z.txt").find("-g_p_s 72 ") != std::string::npos);
}

TEST_CASE("cluster: a Grace superchip's host issues an operation 2.75 times slower than an x86 server's",
          "[compute][cluster]") {
  // The same torch.nn.Linear forward: 37.08 µs of host time on a GB200, 13.48 on a DGX H100's Xeon.
  const aicb::cluster_spec& rack = aicb::cluster_preset("gb200-nvl72");
  CHECK(rack.host_us_per_launch == Approx(33.01).epsilon(1e-3));
  for (const aicb::cluster_spec& c : aicb::cluster_presets)
    if (&c != &rack) {
      INFO(c.name);
      CHECK(c.host_us_per_launch == 12);
    }
}

TEST_CASE("cluster: the SimAI command line matches the machine and the file", "[compute][cluster]") {
  CHECK(aicb::simai_command_line(aicb::cluster_preset("dgx-a100"), 64, "w.txt", "run-") ==
        "SimAI_analytical -w w.txt -g 64 -g_p_s 8 -r run- -nv 240 -nic 23.5 -n_p_s 8 -g_type A100");
  CHECK(aicb::simai_command_line(aicb::cluster_preset("dgx-h100"), 1024, "x.txt") ==
        "SimAI_analytical -w x.txt -g 1024 -g_p_s 8 -r aicb- -nv 360 -nic 48.5 -n_p_s 8 -g_type H100");
  // SimAI knows no B200: no -g_type rather than a wrong one.
  const std::string b200 = aicb::simai_command_line(aicb::cluster_preset("dgx-b200"), 8, "y.txt");
  CHECK(b200.find("-g_type") == std::string::npos);
}

TEST_CASE(
    "cluster: SimAI is given a job's own server when it is smaller than a node, and told what it does not "
    "see",
    "[compute][cluster]") {
  // A job smaller than a node is one server of its own size, with its share of the node's NICs.
  const aicb::cluster_spec& h100 = aicb::cluster_preset("dgx-h100");
  CHECK(aicb::simai_command_line(h100, 4, "a.txt") ==
        "SimAI_analytical -w a.txt -g 4 -g_p_s 4 -r aicb- -nv 360 -nic 48.5 -n_p_s 4 -g_type H100");
  CHECK(aicb::simai_command_line(aicb::cluster_preset("dgx2h"), 4, "b.txt").find("-g_p_s 4 ") !=
        std::string::npos);
  CHECK(aicb::simai_command_line(aicb::cluster_preset("dgx2h"), 4, "b.txt").find("-n_p_s 2") !=
        std::string::npos);  // 8 NICs for 16 GPUs
  const aicb::cluster_spec& rack = aicb::cluster_preset("gb200-nvl72");
  CHECK(aicb::simai_command_line(rack, 64, "c.txt").find("-g_p_s 64 ") != std::string::npos);
  CHECK(aicb::simai_placement_problem(rack, 64).empty());
  CHECK(aicb::simai_placement_problem(rack, 144).empty());
  CHECK(aicb::simai_placement_problem(h100, 4).empty());
  // 256 GPUs in servers of 72: SimAI counts 3 whole ones, the job's last 40 GPUs on a fourth.
  CHECK_THAT(aicb::simai_placement_problem(rack, 256), Catch::Contains("256 / 72 = 3 whole servers") &&
                                                           Catch::Contains("last 40") &&
                                                           Catch::Contains("cluster file"));
  CHECK_FALSE(aicb::simai_placement_problem(h100, 12).empty());
}

TEST_CASE("cluster: a command line's GPU and cluster choose each other", "[compute][cluster]") {
  CHECK(aicb::choose_cluster("", "").name == "dgx-h100");
  CHECK(aicb::choose_cluster("A100", "").name == "dgx-a100");
  const aicb::cluster_spec mixed = aicb::choose_cluster("A800", "dgx-a100");
  CHECK(mixed.name == "dgx-a100");
  CHECK(mixed.gpu == "A800");
  CHECK_THROWS_WITH(aicb::choose_cluster("L40S", ""),
                    Catch::Contains("gpu = L40S") && Catch::Contains("--cluster"));
  CHECK_THROWS_WITH(aicb::choose_cluster("P100", ""),
                    Catch::Contains("gpu = P100") && Catch::Contains("catalogue"));
}
