#!/usr/bin/env python3
"""Writes host/connectors/kube/proto/schema_1_36.inc: the protobuf field numbers of the
Kubernetes API types the connector reads and writes, taken from the Go struct tags of a
k8s.io/api and a k8s.io/apimachinery checkout (tag v0.36.x), as go-to-protobuf takes them:

    Name string `json:"name" protobuf:"bytes,1,opt,name=name"`

Usage: scripts/gen-kube-proto-schema.py <k8s.io/api dir> <k8s.io/apimachinery dir> > out.inc

Each Go struct with protobuf tags becomes a message; each tagged field a row with its JSON
name, its number, how its value reads in JSON (string, int, a message, a Time, a Quantity, ...)
and whether it is repeated, a map, a pointer, inline or omitempty. The connector transcodes
between the wire and JSON with these rows (host/connectors/kube/proto/transcode.h).
"""
import os
import re
import sys

# The packages the connector speaks protobuf for, and their apiVersions.
PACKAGES = [
    ("meta/v1", "apimachinery", "pkg/apis/meta/v1", None),
    ("core/v1", "api", "core/v1", "v1"),
    ("apps/v1", "api", "apps/v1", "apps/v1"),
    ("policy/v1", "api", "policy/v1", "policy/v1"),
    ("scheduling/v1", "api", "scheduling/v1", "scheduling.k8s.io/v1"),
    ("storage/v1", "api", "storage/v1", "storage.k8s.io/v1"),
    ("coordination/v1", "api", "coordination/v1", "coordination.k8s.io/v1"),
    ("events/v1", "api", "events/v1", "events.k8s.io/v1"),
]
IMPORT_TO_PACKAGE = {
    "k8s.io/apimachinery/pkg/apis/meta/v1": "meta/v1",
    "k8s.io/api/core/v1": "core/v1",
}
# Types with a JSON form of their own (their MarshalJSON), not their fields'.
SPECIAL = {
    "meta/v1.Time": "kTime",
    "meta/v1.MicroTime": "kMicroTime",
    "meta/v1.Duration": "kDuration",
    "meta/v1.FieldsV1": "kRawJson",
    "resource.Quantity": "kQuantity",
    "intstr.IntOrString": "kIntOrString",
    "runtime.RawExtension": "kRawJson",
}
SCALARS = {
    "string": "kString",
    "bool": "kBool",
    "int32": "kInt32",
    "int64": "kInt64",
    "int": "kInt64",
    "uint32": "kUint64",
    "uint64": "kUint64",
    "float64": "kDouble",
    "[]byte": "kBytes",
    "types.UID": "kString",
    "types.NodeName": "kString",
}

STRUCT_RE = re.compile(r"^type (\w+) struct \{\s*$")
NAMED_RE = re.compile(r"^type (\w+) (\S.*?)\s*(//.*)?$")
FIELD_RE = re.compile(r"^\t(?:(\w+)\s+)?([\w.*\[\]]+)\s+`([^`]*)`")
TAG_RE = re.compile(r'(\w+):"([^"]*)"')
IMPORT_RE = re.compile(r'^\s*(?:(\w+)\s+)?"([^"]+)"\s*$')


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


def go_files(root, directory):
    names = sorted(os.listdir(os.path.join(root, directory)))
    return [
        os.path.join(directory, n)
        for n in names
        if n.endswith(".go") and not n.endswith("_test.go") and not n.startswith("zz_generated")
        and not n.startswith("generated")
    ]


def parse_package(root, directory):
    structs = {}  # name -> [fields]
    named = {}  # name -> go type expression
    imports = {}  # alias -> package key
    for path in go_files(root, directory):
        text = read(root, path)
        in_import = False
        current = None
        depth = 0
        for line in text.splitlines():
            if line.startswith("import ("):
                in_import = True
                continue
            if in_import:
                if line.strip() == ")":
                    in_import = False
                    continue
                m = IMPORT_RE.match(line)
                if m:
                    alias = m.group(1) or m.group(2).rsplit("/", 1)[-1]
                    imports[alias] = IMPORT_TO_PACKAGE.get(m.group(2), m.group(2).rsplit("/", 1)[-1])
                continue
            if current is None:
                m = STRUCT_RE.match(line)
                if m:
                    current = m.group(1)
                    structs[current] = []
                    depth = 1
                    continue
                m = NAMED_RE.match(line)
                if m and not m.group(2).startswith(("struct", "interface", "=", "func")):
                    named[m.group(1)] = m.group(2)
                continue
            stripped = line.strip()
            if stripped.startswith("//"):
                continue
            depth += line.count("{") - line.count("}")
            if depth <= 0:
                current = None
                continue
            m = FIELD_RE.match(line)
            if not m:
                continue
            tags = dict(TAG_RE.findall(m.group(3)))
            if "protobuf" not in tags:
                continue
            structs[current].append((m.group(1), m.group(2), tags))
    return structs, named, imports


def main():
    api_root, machinery_root = sys.argv[1], sys.argv[2]
    roots = {"api": api_root, "apimachinery": machinery_root}
    packages = {}
    for key, repo, directory, api_version in PACKAGES:
        structs, named, imports = parse_package(roots[repo], directory)
        packages[key] = (structs, named, imports, api_version)

    messages = []  # (package, name)
    index = {}

    def message_index(package, name):
        k = package + "." + name
        if k not in index:
            index[k] = len(messages)
            messages.append((package, name))
        return index[k]

    # Every struct with protobuf fields is a message, in a stable order.
    for key, _, _, _ in PACKAGES:
        structs = packages[key][0]
        for name in sorted(structs):
            if structs[name] and key + "." + name not in SPECIAL:
                message_index(key, name)

    def resolve(package, expr):
        """-> (kind, message, repeated, map) for a Go type expression (pointers removed)."""
        expr = expr.lstrip("*")
        if expr in SCALARS:
            return SCALARS[expr], -1, False, False
        if expr.startswith("[]"):
            kind, message, _, _ = resolve(package, expr[2:])
            return kind, message, True, False
        if expr.startswith("map["):
            kind, message, _, _ = resolve(package, expr[expr.index("]") + 1:])
            return kind, message, False, True
        if "." in expr:
            alias, name = expr.split(".", 1)
            target = packages[package][2].get(alias, alias)
            if target + "." + name in SPECIAL:
                return SPECIAL[target + "." + name], -1, False, False
            if target in packages:
                return resolve(target, name)
            raise SystemExit(f"{package}: unknown type {expr}")
        if package + "." + expr in SPECIAL:
            return SPECIAL[package + "." + expr], -1, False, False
        structs, named, _, _ = packages[package]
        if expr in structs:
            return "kMessage", index[package + "." + expr], False, False
        if expr in named:
            return resolve(package, named[expr])
        raise SystemExit(f"{package}: unknown type {expr}")

    def field_row(package, go_name, go_type, tags):
        proto = tags["protobuf"].split(",")
        number = int(proto[1])
        json_tag = tags.get("json", "").split(",")
        json_name = json_tag[0]
        inline = "inline" in json_tag[1:]
        omitempty = "omitempty" in json_tag[1:] or "omitzero" in json_tag[1:]
        kind, message, repeated, is_map = resolve(package, go_type)
        if kind == "kDuration":
            raise SystemExit(f"{package}: {go_name}: metav1.Duration has no JSON form in "
                             "host/connectors/kube/proto/transcode.cc yet")
        flags = []
        if repeated:
            flags.append("kRepeated")
        if is_map:
            flags.append("kMap")
        if go_type.startswith("*"):
            flags.append("kPointer")
        if inline:
            flags.append("kInline")
        if omitempty:
            flags.append("kOmitEmpty")
        if not json_name and not inline:
            json_name = go_name or go_type.rsplit(".", 1)[-1]
        return number, json_name, kind, " | ".join(flags) or "0", message

    rows = []
    spans = []
    for package, name in messages:
        fields = [field_row(package, *f) for f in packages[package][0][name]]
        fields.sort(key=lambda f: f[0])
        spans.append((len(rows), len(fields)))
        rows.extend(fields)

    out = sys.stdout
    out.write("// Generated by scripts/gen-kube-proto-schema.py from the Go struct tags of\n")
    out.write("// k8s.io/api and k8s.io/apimachinery v0.36 (Kubernetes v1.36): do not edit.\n")
    out.write("// clang-format off\n")
    out.write("inline constexpr ProtoField kFields[] = {\n")
    for number, json_name, kind, flags, message in rows:
        out.write(f'    {{{number}, "{json_name}", FieldKind::{kind}, {flags}, {message}}},\n')
    out.write("};\n\n")
    out.write("inline constexpr ProtoMessage kMessages[] = {\n")
    for (package, name), (first, count) in zip(messages, spans):
        api_version = packages[package][3] or ""
        out.write(f'    {{"{package}", "{api_version}", "{name}", {first}, {count}}},\n')
    out.write("};\n")
    out.write("// clang-format on\n")


if __name__ == "__main__":
    main()
