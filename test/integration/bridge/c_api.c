// A C program driving the bridge's C API (synthase/synthase-c.h) the way a compiler written in
// another language would: build items, get refusals and missing-function errors as messages,
// then differentiate with the runtime slice-length guard on. The module it writes is compiled
// with a C driver whose derivatives must be right, and whose too-short shadow must abort.
// RUN: bash -c '%clang -I%srcroot/include $(llvm-config-22 --cflags) %s -o %t.api %buildroot/lib/libSynthaseCore.a $(llvm-config-22 --ldflags --libs) -Wl,-rpath,$(llvm-config-22 --libdir) -lstdc++ -lm'
// RUN: %t.api %t.ll | %FileCheck %s
// RUN: %clang -O1 -I%inputs %t.ll %S/Inputs/c_api_driver.c -o %t.run -lm && %t.run
// RUN: not --crash %t.run short 2>&1 | %FileCheck %s --check-prefix=SHORT
#include "synthase/synthase-c.h"
#include "llvm-c/IRReader.h"
#include <stdio.h>
#include <string.h>

static const char *IR =
    "define double @square(double %x) {\n"
    "  %y = fmul double %x, %x\n"
    "  ret double %y\n"
    "}\n"
    "define double @sumsq(ptr %a, i64 %n) {\n"
    "entry:\n"
    "  br label %loop\n"
    "loop:\n"
    "  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]\n"
    "  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]\n"
    "  %p = getelementptr inbounds double, ptr %a, i64 %i\n"
    "  %v = load double, ptr %p\n"
    "  %sq = fmul double %v, %v\n"
    "  %acc.next = fadd double %acc, %sq\n"
    "  %i.next = add i64 %i, 1\n"
    "  %more = icmp ult i64 %i.next, %n\n"
    "  br i1 %more, label %loop, label %done\n"
    "done:\n"
    "  ret double %acc.next\n"
    "}\n"
    /* placeholders with whatever body a front end had at hand */
    "define { double, double } @dsquare(double %x, double %seed) noinline {\n"
    "  ret { double, double } zeroinitializer\n"
    "}\n"
    "define void @dsumsq(ptr %a, i64 %n, ptr %da, i64 %dn, double %seed) noinline {\n"
    "  ret void\n"
    "}\n";

static void say(const char *What, char *Msg) {
  printf("%s: %s\n", What, Msg ? Msg : "(no message)");
  SynthaseDisposeMessage(Msg);
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  LLVMContextRef Ctx = LLVMContextCreate();
  LLVMMemoryBufferRef Buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(IR, strlen(IR), "bridge");
  LLVMModuleRef M;
  char *Err = NULL;
  if (LLVMParseIRInContext(Ctx, Buf, &M, &Err)) {
    say("parse", Err);
    return 1;
  }

  SynthaseAutoDiffItemRef Items[2];
  Items[0] = SynthaseCreateAutoDiffItem("square", "dsquare", SynthaseDiffModeReverse, 1, &Err);
  SynthaseSetReturnActivity(Items[0], SynthaseActivityActive, &Err);
  SynthaseAddInputActivity(Items[0], SynthaseActivityActive, SYNTHASE_NO_ELEM_SIZE, &Err);
  Items[1] = SynthaseParseAutoDiffItem(
      "source=sumsq;target=dsumsq;mode=reverse;ret=ActiveOnly;args=Duplicated,FakeActivitySize(8)",
      &Err);
  for (int I = 0; I < 2; ++I) {
    char *Text = SynthasePrintAutoDiffItem(Items[I]);
    printf("item: %s\n", Text);
    SynthaseDisposeMessage(Text);
  }
  // CHECK: item: source=square;target=dsquare;mode=reverse;width=1;ret=Active;args=Active
  // CHECK: item: source=sumsq;target=dsumsq;mode=reverse;width=1;ret=ActiveOnly;args=Duplicated,FakeActivitySize(8)

  if (SynthaseDifferentiate(M, Items, 2, /*AutodiffEnabled=*/0, 1, &Err))
    say("refused", Err);
  // CHECK: refused: autodiff item 'square' -> 'dsquare': autodiff is not enabled

  SynthaseAutoDiffItemRef Missing =
      SynthaseParseAutoDiffItem("source=cube;target=dcube;mode=reverse;args=Active", &Err);
  if (SynthaseDifferentiate(M, &Missing, 1, 1, 0, &Err))
    say("missing", Err);
  // CHECK: missing: autodiff item 'cube' -> 'dcube': could not find source function 'cube'
  SynthaseDisposeAutoDiffItem(Missing);

  SynthaseAutoDiffItemRef Bad = SynthaseParseAutoDiffItem(
      "source=sumsq;target=dsumsq;mode=forward;args=Dualv,Const", &Err);
  if (SynthaseExpandItems(M, &Bad, 1, 0, &Err))
    say("bad", Err);
  // CHECK: bad: autodiff item 'sumsq' -> 'dsumsq': Dualv (input #0) must be followed by FakeActivitySize
  SynthaseDisposeAutoDiffItem(Bad);

  if (SynthaseDifferentiate(M, Items, 2, 1, /*CheckSliceLengths=*/1, &Err)) {
    say("differentiate failed", Err);
    return 1;
  }
  if (LLVMPrintModuleToFile(M, argv[1], &Err)) {
    say("write", Err);
    return 1;
  }
  printf("differentiated\n");
  // CHECK: differentiated
  SynthaseDisposeAutoDiffItem(Items[0]);
  SynthaseDisposeAutoDiffItem(Items[1]);
  LLVMDisposeModule(M);
  LLVMContextDispose(Ctx);
  return 0;
}

// SHORT: synthase: autodiff item 'sumsq' -> 'dsumsq': the shadow of slice input #0 (lane 0) has 2 elements but needs at least 3
