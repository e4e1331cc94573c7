// The bounds on what the host accepts from outside: configuration files, cluster files, watch
// streams and the objects in them (docs/limits.md lists each with the message it gives).
//
// Each bound is far above what Kubernetes itself lets through (the API server stores an object
// of at most about 1.5 MiB in etcd, so no real object comes near them); they exist so that
// hostile or broken input is refused with a message instead of exhausting memory or the stack.
// Every check is O(1) per token: a size compared once, a depth counted as it is opened.
#pragma once

#include <cstddef>

namespace sh::limits {

// Bytes of one Kubernetes object: a line of JSON lines, an element of a List, a watch event.
inline constexpr std::size_t kMaxObjectBytes = std::size_t{16} << 20;
// Bytes of one line of a change stream or of an API server watch body (one event: an object
// and its envelope).
inline constexpr std::size_t kMaxLineBytes = kMaxObjectBytes + (std::size_t{64} << 10);

// Nesting of JSON arrays and objects, in every JSON the host reads (Boost.JSON max_depth).
inline constexpr std::size_t kMaxJsonDepth = 256;
// Nesting of TOML arrays, inline tables and dotted keys, checked before the file is parsed.
inline constexpr std::size_t kMaxTomlDepth = 128;

// Entries of metadata.labels, and of metadata.annotations, of one object.
inline constexpr std::size_t kMaxLabelsPerObject = 10'000;
inline constexpr std::size_t kMaxAnnotationsPerObject = 10'000;
// matchExpressions of one label selector or node selector term (and matchFields).
inline constexpr std::size_t kMaxExpressionsPerSelector = 1'000;
// nodeSelectorTerms of a required node affinity; terms of one preferred or (anti-)affinity list.
inline constexpr std::size_t kMaxTermsPerAffinity = 1'000;
// containers, and initContainers, of one pod.
inline constexpr std::size_t kMaxContainersPerPod = 1'000;
// tolerations of one pod.
inline constexpr std::size_t kMaxTolerationsPerPod = 1'000;
// spec.volumes and spec.resourceClaims of one pod.
inline constexpr std::size_t kMaxVolumesPerPod = 1'000;

// Files the host reads whole (regular_file.h): anything but a regular file is refused, and so
// is a file above its bound, before it is read.
// The host configuration (--config), a profile file, a file of a profile directory.
inline constexpr std::size_t kMaxConfigFileBytes = std::size_t{16} << 20;
// A kubeconfig (its certificates may be embedded).
inline constexpr std::size_t kMaxKubeconfigBytes = std::size_t{16} << 20;
// A file a kubeconfig or the in-cluster configuration names: a token, a CA bundle, a client
// certificate or key, the namespace file.
inline constexpr std::size_t kMaxCredentialFileBytes = std::size_t{4} << 20;
// A cluster or scenario file (--cluster, evaluate, test).
inline constexpr std::size_t kMaxClusterFileBytes = std::size_t{1} << 30;

// The body of one API server answer read whole (everything but a watch): a larger declared
// Content-Length, or a body that grows past it, is an error naming the request. A page of a
// paged list (500 objects) stays far below it.
inline constexpr std::size_t kMaxResponseBytes = std::size_t{256} << 20;
// The body of an API server error answer, and of a watch's non-2xx answer, kept for messages.
inline constexpr std::size_t kMaxErrorBodyBytes = std::size_t{1} << 20;
// Response headers of one API server answer.
inline constexpr std::size_t kMaxResponseHeaderBytes = std::size_t{64} << 10;

}  // namespace sh::limits
