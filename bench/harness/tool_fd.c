/* Central finite differences; the driver calls obj_fd itself so it can sample directions. */
#include "bench.h"
const char *tool_name = "fd";
void tool_prepare(Problem *p) { (void)p; }
void tool_deriv(Problem *p, double *D) { obj_fd(p, D, 1L << 40); }
