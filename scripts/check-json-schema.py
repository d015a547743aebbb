#!/usr/bin/env python3
# aicb — LLM training workloads for cluster and network simulators.
# SPDX-License-Identifier: Apache-2.0
"""Validates JSON documents against aicb's schemas (docs/schemas/), with no dependency: the subset of
JSON Schema those schemas use — type, const, enum, pattern, minimum, maximum, required, properties,
additionalProperties, items, $ref into #/$defs, anyOf.

  check-json-schema.py SCHEMA FILE...        validate files
  check-json-schema.py SCHEMA -- COMMAND...  validate what COMMAND prints (it must exit 0)

Exit 0 when every document is valid; otherwise each violation is printed with its JSON path.
"""
import json
import re
import subprocess
import sys

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
KNOWN = {"$schema", "$id", "$defs", "title", "description", "type", "const", "enum", "pattern", "minimum",
         "maximum", "required", "properties", "additionalProperties", "items", "$ref", "anyOf"}


def validate(value, schema, root, path, errors):
    unknown = set(schema) - KNOWN
    if unknown:
        raise SystemExit(f"schema uses what this checker does not know: {sorted(unknown)} at {path}")
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            raise SystemExit(f"only #/$defs/ references are supported: {ref}")
        validate(value, root["$defs"][ref[len("#/$defs/"):]], root, path, errors)
    if "anyOf" in schema:
        if not any(not attempt(value, s, root, path) for s in schema["anyOf"]):
            errors.append(f"{path}: matches none of anyOf")
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](value) for t in types):
            errors.append(f"{path}: expected {' or '.join(types)}, found {json.dumps(value)[:60]}")
            return
    if "const" in schema and value != schema["const"]:
        errors.append(f"{path}: expected {json.dumps(schema['const'])}, found {json.dumps(value)[:60]}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{path}: {json.dumps(value)[:60]} is not one of {schema['enum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        errors.append(f"{path}: {value!r} does not match {schema['pattern']}")
    if "minimum" in schema and TYPES["number"](value) and value < schema["minimum"]:
        errors.append(f"{path}: {value} is below {schema['minimum']}")
    if "maximum" in schema and TYPES["number"](value) and value > schema["maximum"]:
        errors.append(f"{path}: {value} is above {schema['maximum']}")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{path}: missing '{key}'")
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                validate(item, properties[key], root, f"{path}.{key}", errors)
            elif extra is False:
                errors.append(f"{path}: '{key}' is not in the schema")
            elif isinstance(extra, dict):
                validate(item, extra, root, f"{path}.{key}", errors)
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            validate(item, schema["items"], root, f"{path}[{i}]", errors)


def attempt(value, schema, root, path):
    errors = []
    validate(value, schema, root, path, errors)
    return errors


def main() -> int:
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    documents = []
    if sys.argv[2] == "--":
        run = subprocess.run(sys.argv[3:], capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit(f"FAIL: the command exited {run.returncode}: {run.stderr.strip()}")
        documents.append(("(output)", run.stdout))
    else:
        for name in sys.argv[2:]:
            with open(name, encoding="utf-8") as f:
                documents.append((name, f.read()))
    failed = False
    for name, text in documents:
        try:
            document = json.loads(text)
        except json.JSONDecodeError as e:
            print(f"{name}: not JSON: {e}")
            failed = True
            continue
        errors = attempt(document, schema, schema, "$")
        for e in errors[:20]:
            print(f"{name}: {e}")
        if errors:
            failed = True
        else:
            print(f"{name}: valid against {schema.get('$id', sys.argv[1])}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
