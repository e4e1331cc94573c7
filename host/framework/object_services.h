// The object services of the host table (sh_host_api, since ABI 1.2); see plugin.h §6 for
// their contract and object_services.cc for how they are served.
#pragma once

#include <schedhost/plugin.h>

#include <cstddef>
#include <cstdint>

namespace sh::object_services {

const sh_object* get(sh_host* h, sh_cycle* c, uint32_t kind, const char* ns, size_t nsLen,
                     const char* name, size_t nameLen);
size_t list(sh_host* h, sh_cycle* c, uint32_t kind, const char* ns, size_t nsLen,
            const char* selector, size_t selectorLen, const sh_object* const** out);
uint64_t kindVersion(sh_host* h, sh_cycle* c, uint32_t kind);
size_t objectJson(const sh_object* object, char* buf, size_t capacity);
int jsonType(const sh_json* j);
const sh_json* jsonGet(const sh_json* j, const char* key, size_t len);
const sh_json* jsonPath(const sh_json* j, const char* path, size_t len);
size_t jsonSize(const sh_json* j);
const sh_json* jsonAt(const sh_json* j, size_t index);
sh_str jsonKeyAt(const sh_json* j, size_t index);
int64_t jsonInt(const sh_json* j);
double jsonDouble(const sh_json* j);
int jsonBool(const sh_json* j);
sh_str jsonString(const sh_json* j);
sh_code write(sh_host* h, sh_cycle* c, const sh_object_write* w, sh_status* st);
sh_code assume(sh_host* h, uint32_t kind, const char* json, size_t len, sh_status* st);
void restore(sh_host* h, uint32_t kind, const char* ns, size_t nsLen, const char* name,
             size_t nameLen);

}  // namespace sh::object_services
