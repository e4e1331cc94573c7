#!/usr/bin/env bash
# The Kubernetes manifests as an operator applies them: the ConfigMap's KubeSchedulerConfiguration
# checks, and the Deployment's command line parses and gets as far as the API server.
#
#   kubernetes_manifests_test.sh SCHEDHOST MANIFEST_DIR
set -euo pipefail
sh=$1
manifests=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The ConfigMap's file, unindented.
sed -n '/^  kube-scheduler.yaml: |$/,$p' "$manifests/configmap.yaml" | tail -n +2 |
  sed -e 's/^    //' > "$work/kube-scheduler.yaml"
grep -q '^kind: KubeSchedulerConfiguration$' "$work/kube-scheduler.yaml"
"$sh" profile check --json "$work/kube-scheduler.yaml" > "$work/check.json"
grep -q '"schedulerName": *"schedhost"' "$work/check.json" || {
  echo "profile check did not name the schedhost profile:"; cat "$work/check.json"; exit 1; }

# The container's command, from `- /usr/bin/schedhost` to the end of its list, with the
# mounted paths moved into the work directory and the secure port off (nothing to serve it for).
awk '/- \/usr\/bin\/schedhost$/ {on = 1; next}
     on && /^ *- / {sub(/^ *- /, ""); print; next}
     on && /^ *#/ {next}
     on {exit}' "$manifests/deployment.yaml" |
  sed -e "s|/etc/schedhost/kube-scheduler.yaml|$work/kube-scheduler.yaml|" \
      -e "s|/run/schedhost/admin.sock|$work/admin.sock|" \
      -e "s|--secure-port=10259|--secure-port=0|" > "$work/args"
grep -q -- '--config=' "$work/args"
mapfile -t args < "$work/args"
# No API server: the run stops at the kubeconfig, after every flag was taken.
set +e
"$sh" "${args[@]}" --kubeconfig "$work/no-such-kubeconfig" > "$work/out" 2> "$work/err"
code=$?
set -e
if [ "$code" -ne 1 ] || ! grep -q "no-such-kubeconfig" "$work/err"; then
  echo "the Deployment's command line (exit $code):"; cat "$work/args"; cat "$work/err"; exit 1
fi
if grep -q -e "not expected" -e "was not expected" -e "Run with --help" "$work/err"; then
  echo "a flag of the Deployment was refused:"; cat "$work/err"; exit 1
fi
echo "manifests: ok"
