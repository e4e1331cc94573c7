#include <schedhost/plugin.hpp>

#include <vector>

#include "host/a/a.h"
#include "p.h"

int q() { return p(); }
