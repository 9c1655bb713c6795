/* Synthase declarative autodiff for C and C++: the spelling of Rust's
 * #[autodiff_reverse(...)] / #[autodiff_forward(...)] as a function attribute.
 *
 * Put the attribute on a *placeholder* whose signature is the derivative's; it names the function
 * to differentiate and lists the activities in Rust's order (one per source argument, a slice
 * taking two: its activity then FakeActivitySize, then the return activity when the source
 * returns a value). The compiler (synthase-cc) replaces the placeholder's body:
 *
 *   double square(double x) { return x * x; }
 *
 *   typedef struct { double primal, dx; } SquareGrad;
 *   synthase_autodiff_reverse(square, Active, Active)
 *   SquareGrad dsquare(double x, double seed) { return (SquareGrad){0, 0}; }
 *
 * The placeholder must have a body (clang records annotations only on definitions); what it
 * does is irrelevant. See docs/bridge.md for the placeholder signature of every activity.
 */
#ifndef SYNTHASE_AUTODIFF_H
#define SYNTHASE_AUTODIFF_H

/* Any item text without target=, e.g. "source=f;mode=forward;width=2;ret=DualOnly;args=Dual". */
#define SYNTHASE_AUTODIFF(spec) __attribute__((annotate("synthase_autodiff:" spec), noinline))

#define synthase_autodiff_reverse(SOURCE, ...)                                                    \
  SYNTHASE_AUTODIFF("source=" #SOURCE ";mode=reverse;activities=" #__VA_ARGS__)
#define synthase_autodiff_forward(SOURCE, ...)                                                    \
  SYNTHASE_AUTODIFF("source=" #SOURCE ";mode=forward;activities=" #__VA_ARGS__)
/* Vector forward mode: WIDTH tangents per call. */
#define synthase_autodiff_forward_width(SOURCE, WIDTH, ...)                                       \
  SYNTHASE_AUTODIFF("source=" #SOURCE ";mode=forward;width=" #WIDTH ";activities=" #__VA_ARGS__)

#endif /* SYNTHASE_AUTODIFF_H */
