/* The hand-written derivative as a timed tool (it is also every tool's reference). */
#include "bench.h"
const char *tool_name = "hand";
void tool_prepare(Problem *p) { (void)p; }
void tool_deriv(Problem *p, double *D) { obj_hand(p, D); }
