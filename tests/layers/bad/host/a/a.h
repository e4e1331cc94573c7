#pragma once

#include "host/b/b.h"

inline int a() { return 1; }
