#pragma once

#include <string>

#include "host/a/a.h"

inline int b() { return a() + 1; }
