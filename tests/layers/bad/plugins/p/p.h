#pragma once

inline int p() { return 3; }
