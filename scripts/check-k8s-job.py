#!/usr/bin/env python3
"""Checks the Kubernetes example (docs/sharding/kubernetes-indexed-job.yaml) offline against
the Job API: every document against scripts/k8s-job-schema.json (batch/v1 Job and the types it
holds, from the Kubernetes client's models: field names, types, required fields such as
containers[].name, no unknown field), then the rules the API server adds for a Job:

- apiVersion batch/v1, kind Job, metadata.name a DNS-1123 label (a Job's pods carry it);
- restartPolicy Never or OnFailure; completionMode NonIndexed or Indexed;
- an Indexed Job has completions (1 to 100000) and parallelism ≥ 0, and its containers read
  JOB_COMPLETION_INDEX; a `funnellab … --shards n` in it has n = completions;
- every container has an image; names are unique; every volumeMount names a volume.

    python3 scripts/check-k8s-job.py               # the example; exit 1 with every problem
    python3 scripts/check-k8s-job.py FILE.yaml …   # other manifests
    python3 scripts/check-k8s-job.py --self-test   # broken copies of the example are refused

Needs PyYAML. No network: the schema is committed (scripts/gen-k8s-job-schema.py writes it).
"""
import copy
import json
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(os.path.dirname(HERE), "docs", "sharding", "kubernetes-indexed-job.yaml")
SCHEMA = os.path.join(HERE, "k8s-job-schema.json")
TYPES = {"string": str, "integer": int, "boolean": bool, "number": (int, float), "object": dict,
         "array": list, "null": type(None)}
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def schema_problems(value, node, defs, path):
    """The schema subset the generated file uses: $ref, anyOf, type, properties, required,
    additionalProperties (false or a schema), items."""
    if "$ref" in node:
        return schema_problems(value, defs[node["$ref"].split("/")[-1]], defs, path)
    if "anyOf" in node:
        options = [schema_problems(value, option, defs, path) for option in node["anyOf"]]
        return [] if any(not found for found in options) else min(options, key=len)
    kind = node.get("type")
    if kind and (not isinstance(value, TYPES[kind]) or (kind in ("integer", "number") and isinstance(value, bool))):
        return [f"{path}: expected {kind}, got {type(value).__name__} {json.dumps(value, default=str)[:40]}"]
    problems = []
    if isinstance(value, dict):
        properties = node.get("properties", {})
        for key in node.get("required", []):
            if key not in value:
                problems.append(f"{path}.{key}: required")
        extra = node.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                problems += schema_problems(item, properties[key], defs, f"{path}.{key}")
            elif extra is False:
                problems.append(f"{path}.{key}: not a field of this object (known: {', '.join(sorted(properties))[:120]}…)")
            elif isinstance(extra, dict):
                problems += schema_problems(item, extra, defs, f"{path}.{key}")
    if isinstance(value, list) and "items" in node:
        for i, item in enumerate(value):
            problems += schema_problems(item, node["items"], defs, f"{path}[{i}]")
    return problems


def job_problems(job, path):
    """The Job rules the schema does not say (validated by the API server)."""
    problems = []
    if job.get("apiVersion") != "batch/v1":
        problems.append(f"{path}.apiVersion: 'batch/v1' expected, got {job.get('apiVersion')!r}")
    if job.get("kind") != "Job":
        problems.append(f"{path}.kind: 'Job' expected, got {job.get('kind')!r}")
    name = _dig(job, ["metadata", "name"])
    if not isinstance(name, str) or not DNS_LABEL.match(name):
        problems.append(f"{path}.metadata.name: a DNS-1123 label expected (a-z, 0-9, '-', at most 63), got {name!r}")
    spec = job.get("spec") or {}
    pod = _dig(spec, ["template", "spec"]) or {}
    if pod.get("restartPolicy") not in ("Never", "OnFailure"):
        problems.append(f"{path}.spec.template.spec.restartPolicy: Never or OnFailure for a Job, got {pod.get('restartPolicy')!r}")
    mode = spec.get("completionMode", "NonIndexed")
    if mode not in ("NonIndexed", "Indexed"):
        problems.append(f"{path}.spec.completionMode: NonIndexed or Indexed, got {mode!r}")
    containers = pod.get("containers") or []
    names = [c.get("name") for c in containers if isinstance(c, dict)]
    if len(set(names)) != len(names):
        problems.append(f"{path}.spec.template.spec.containers: names not unique: {names}")
    volumes = {v.get("name") for v in pod.get("volumes") or [] if isinstance(v, dict)}
    for i, container in enumerate(c for c in containers if isinstance(c, dict)):
        if not container.get("image"):
            problems.append(f"{path}.spec.template.spec.containers[{i}].image: required for a Job")
        for mount in container.get("volumeMounts") or []:
            if isinstance(mount, dict) and mount.get("name") not in volumes:
                problems.append(f"{path}.spec.template.spec.containers[{i}].volumeMounts: no volume named {mount.get('name')!r}")
    if mode == "Indexed":
        completions, parallelism = spec.get("completions"), spec.get("parallelism", 1)
        if not isinstance(completions, int) or not 1 <= completions <= 100000:
            problems.append(f"{path}.spec.completions: an Indexed Job needs 1 to 100000 completions, got {completions!r}")
        if not isinstance(parallelism, int) or parallelism < 0:
            problems.append(f"{path}.spec.parallelism: ≥ 0 expected, got {parallelism!r}")
        text = json.dumps(containers)
        if "JOB_COMPLETION_INDEX" not in text:
            problems.append(f"{path}: an Indexed Job whose containers never read JOB_COMPLETION_INDEX")
        for shards in re.findall(r"--shards (\d+)", text):
            if int(shards) != completions:
                problems.append(f"{path}: funnellab --shards {shards} in a Job of {completions} completions")
    return problems


def _dig(node, keys):
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def problems_of(documents, schema, name):
    problems = []
    for i, job in enumerate(documents):
        path = f"{name}[{i}]"
        if not isinstance(job, dict):
            problems.append(f"{path}: a mapping expected")
            continue
        problems += schema_problems(job, schema, schema["$defs"], path)
        problems += job_problems(job, path)
    return problems


def self_test(schema):
    """Each broken copy of the example must be refused with a problem naming what broke."""
    with open(EXAMPLE) as file:
        example = list(yaml.safe_load_all(file))
    pod = lambda docs: docs[0]["spec"]["template"]["spec"]
    breaks = {
        "containers[0].name": lambda d: pod(d)["containers"][0].pop("name"),
        "restartPolicy": lambda d: pod(d).update(restartPolicy="Always"),
        "spec.completions": lambda d: d[0]["spec"].pop("completions"),
        "restartpolicy": lambda d: pod(d).update(restartpolicy="Never"),
        "parallelism": lambda d: d[0]["spec"].update(parallelism="8"),
        "JOB_COMPLETION_INDEX": lambda d: pod(d)["containers"][0].update(args=["funnellab grid --shards 8"]),
        "--shards 4": lambda d: pod(d)["containers"][0].update(args=["funnellab grid --shards 4 -o /parts/$JOB_COMPLETION_INDEX"]),
        "apiVersion": lambda d: d[1].update(apiVersion="batch/v1beta1"),
        "no volume named": lambda d: pod(d)["containers"][0]["volumeMounts"].append({"name": "cache", "mountPath": "/c"}),
    }
    failed = 0
    for expected, breaking in breaks.items():
        broken = copy.deepcopy(example)
        breaking(broken)
        found = problems_of(broken, schema, "broken")
        if not any(expected in problem for problem in found):
            print(f"self-test: a copy with a broken {expected} passed: {found}", file=sys.stderr)
            failed += 1
    print(f"check-k8s-job self-test: {len(breaks) - failed} of {len(breaks)} broken copies refused")
    return 1 if failed else 0


def main(arguments):
    with open(SCHEMA) as file:
        schema = json.load(file)
    if arguments == ["--self-test"]:
        return self_test(schema)
    status = 0
    for name in arguments or [EXAMPLE]:
        with open(name) as file:
            documents = list(yaml.safe_load_all(file))
        problems = problems_of(documents, schema, os.path.basename(name))
        for problem in problems:
            print(problem, file=sys.stderr)
        shown = os.path.relpath(name)
        verdict = "valid" if not problems else f"{len(problems)} problems"
        print(f"{shown}: {len(documents)} Jobs, {verdict} (batch/v1 Job schema and rules)")
        status |= 1 if problems else 0
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
