/* A bump arena registered with __enzyme_allocation_like, and a function that allocates from it.
 * An -O2 LTO compile would inline the arena into cubes() before the link, leaving no allocation
 * to see: the registration keeps the allocator and its deallocator out of line. */
#include <stddef.h>
static char arena_mem[4096] __attribute__((aligned(64)));
static size_t arena_used;
int arena_live;
void *arena_alloc(size_t n) {
  void *p = arena_mem + arena_used;
  arena_used += (n + 63) & ~(size_t)63;
  arena_live++;
  return p;
}
void arena_free(void *p) {
  if ((char *)p < arena_mem || (char *)p >= arena_mem + arena_used)
    __builtin_trap(); /* not from this arena */
  if (--arena_live == 0)
    arena_used = 0;
}
void *__enzyme_allocation_like[4] = {(void *)arena_alloc, (void *)0, (void *)"-1", (void *)arena_free};
double cubes(const double *x, int n) {
  double *v = arena_alloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    v[i] = x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] * x[i];
  arena_free(v);
  return s;
}
