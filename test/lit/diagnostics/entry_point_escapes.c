// An entry point that escapes (here passed to another function) cannot be followed to a call
// site: the compile fails with a diagnostic instead of an undefined symbol at link time.
// RUN: not %synthase-cc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %synthase-cc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: synthase: {{.*}}'__enzyme_autodiff' is used other than by a direct call
// CHECK: hint: call __enzyme_autodiff / __enzyme_fwddiff directly
double __enzyme_autodiff(void *, ...);
typedef double (*Entry)(void *, ...);
void register_entry(Entry e);
void setup(void) { register_entry(__enzyme_autodiff); }
