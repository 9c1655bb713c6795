/* Driving the bridge from another compiler through the C API: parse a module, describe what to
 * differentiate, let Synthase fill the placeholder and lower it, print the result.
 *
 *   clang-22 -Iinclude $(llvm-config-22 --cflags) examples/bridge/c_api.c -o c_api \
 *     build/lib/libSynthaseCore.a $(llvm-config-22 --ldflags --libs) -lstdc++ -lm && ./c_api
 */
#include "llvm-c/IRReader.h"
#include "synthase/synthase-c.h"
#include <stdio.h>
#include <string.h>

static const char *IR = "define double @cube(double %x) {\n"
                        "  %s = fmul double %x, %x\n"
                        "  %c = fmul double %s, %x\n"
                        "  ret double %c\n"
                        "}\n"
                        "define double @dcube(double %x) noinline {\n"
                        "  ret double 0.0\n"
                        "}\n";

int main(void) {
  LLVMContextRef Ctx = LLVMContextCreate();
  LLVMModuleRef M;
  char *Err = NULL;
  LLVMMemoryBufferRef Buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(IR, strlen(IR), "cube");
  if (LLVMParseIRInContext(Ctx, Buf, &M, &Err))
    return fprintf(stderr, "%s\n", Err), 1;

  /* The same item could be built with SynthaseCreateAutoDiffItem + SynthaseAddInputActivity. */
  SynthaseAutoDiffItemRef Item = SynthaseParseAutoDiffItem(
      "source=cube;target=dcube;mode=reverse;ret=ActiveOnly;args=Active", &Err);
  if (!Item)
    return fprintf(stderr, "%s\n", Err), 1;
  if (SynthaseDifferentiate(M, &Item, 1, /*AutodiffEnabled=*/1, /*CheckSliceLengths=*/0, &Err)) {
    fprintf(stderr, "%s\n", Err);
    SynthaseDisposeMessage(Err);
    return 1;
  }
  char *Text = LLVMPrintModuleToString(M);
  fputs(Text, stdout);
  LLVMDisposeMessage(Text);
  SynthaseDisposeAutoDiffItem(Item);
  LLVMDisposeModule(M);
  LLVMContextDispose(Ctx);
  return 0;
}
