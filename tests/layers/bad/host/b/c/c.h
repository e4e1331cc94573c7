// Layer c, nested in b's folder (DIR b/c): it may include a, not the folder around it.
#pragma once
#include "host/a/a.h"
#include "host/b/b.h"
