#!/usr/bin/env python3
"""Writes scripts/k8s-job-schema.json, the Job API's schema (batch/v1 Job and every type it
holds) that scripts/check-k8s-job.py checks docs/sharding/kubernetes-indexed-job.yaml against.

The source is the Kubernetes Python client's models (PyPI `kubernetes`, pydantic models of the
API's OpenAPI spec: field names, types, required fields, no unknown field allowed). It is not a
dependency of the project: run this in a throwaway venv, outside the repository, and commit
the JSON it writes (descriptions dropped, `X or null` written as `X`):

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install kubernetes==37.0.2
    /tmp/venv/bin/python scripts/gen-k8s-job-schema.py
"""
import json
import os

import kubernetes
from kubernetes.client import models

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "k8s-job-schema.json")
DROPPED = ("description", "title", "default")


def simplify(node):
    """Drops the prose and the pydantic `null` alternatives (an omitted field, not a value)."""
    if isinstance(node, list):
        return [simplify(item) for item in node]
    if not isinstance(node, dict):
        return node
    options = node.get("anyOf")
    if options and len(options) == 2 and {"type": "null"} in options:
        kept = dict(node)
        del kept["anyOf"]
        kept.update(next(option for option in options if option != {"type": "null"}))
        node = kept
    return {key: simplify(value) for key, value in node.items() if key not in DROPPED}


def main():
    schema = simplify(models.V1Job.model_json_schema(by_alias=True))
    schema["$comment"] = (
        f"batch/v1 Job, from the Kubernetes Python client {kubernetes.__version__} (models.V1Job); "
        "written by scripts/gen-k8s-job-schema.py")
    with open(OUT, "w") as file:
        json.dump(schema, file, indent=1, sort_keys=True)
        file.write("\n")
    print(f"{OUT}: {len(schema['$defs'])} types")


if __name__ == "__main__":
    main()
