// Who could swap a plugin file: its owner and mode, and those of every directory above it.
//
// The rule is OpenSSH's safe_path() (and sudo's, Solaris PAM's): the file and each ancestor
// directory must be owned by root or by the user the host runs as, and be neither group- nor
// world-writable. A sticky directory (like /tmp) is exempt from the writable rule, since
// others cannot rename or remove entries they do not own in it.
#pragma once

#include <sys/stat.h>

#include <string>
#include <vector>

namespace sh::plugin {

// One lowercase sentence per problem, e.g. "[/opt/p/libx.so] is world-writable" or
// "directory [/opt/p] is owned by uid 1000, neither root nor the current user". `fileStatus`
// is the fstat of the open file, so the file itself is judged by what was read.
std::vector<std::string> permissionProblems(const std::string& canonicalPath,
                                            const struct stat& fileStatus);

}  // namespace sh::plugin
