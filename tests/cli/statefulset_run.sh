#!/bin/sh
# A StatefulSet's claims on the embedded cluster (statefulset_cluster.json), as `schedhost run`
# schedules them with the default profile and the cluster's PV controller emulation:
#   web-0..3   WaitForFirstConsumer claims of a class allowed in zone-b and zone-c only: each
#              pod goes to n-b or n-c (n-a is outside the class's topology), and its claim is
#              provisioned there before the pod binds;
#   logger     a claim bound to a volume in zone-a: the pod goes to n-a;
#   orphan     a claim that does not exist: pending, with upstream's message.
# Two pods of 400m fit a node of 1 CPU: web-0..3 fill n-b and n-c.
#   statefulset_run.sh SCHEDHOST CLUSTER
set -u
sh_bin=$1 cluster=$2
failures=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi; }

out=$("$sh_bin" run --cluster "$cluster" --seed 1 2>&1)
check "run: exit 0" '[ $? = 0 ]'
for p in web-0 web-1 web-2 web-3; do
  check "$p bound in zone-b or zone-c" \
    "echo \"\$out\" | grep -q '\"kind\":\"Binding\",\"pod\":\"default/$p\",\"node\":\"n-[bc]\"'"
done
check "logger bound beside its zone-a volume" \
  "echo \"\$out\" | grep -q '\"kind\":\"Binding\",\"pod\":\"default/logger\",\"node\":\"n-a\"'"
check "orphan pending: persistentvolumeclaim \"missing\" not found" \
  "echo \"\$out\" | grep '\"pod\":\"default/orphan\"' | grep -q 'persistentvolumeclaim \\\\\"missing\\\\\" not found'"
check "summary: 5 scheduled, 1 unschedulable" \
  "echo \"\$out\" | grep -q '\"kind\":\"Summary\",\"scheduled\":5,\"unschedulable\":1,'"
[ "$failures" = 0 ] || echo "$out"
exit "$failures"
