/* Synthase C API: the autodiff bridge for compilers written in other languages.
 *
 * Mirrors include/synthase/Bridge.h over LLVM-C handles. Conventions follow LLVM-C: functions that
 * can fail return 0 on success and 1 on failure, and then set *ErrorMessage to a message naming
 * the autodiff item, to be released with SynthaseDisposeMessage. Nothing in this API aborts.
 */
#ifndef SYNTHASE_C_H
#define SYNTHASE_C_H

#include "llvm-c/Core.h"
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  SynthaseDiffModeForward = 0,
  SynthaseDiffModeReverse = 1,
} SynthaseDiffMode;

typedef enum {
  SynthaseActivityNone = 0,
  SynthaseActivityConst,
  SynthaseActivityActive,
  SynthaseActivityActiveOnly,
  SynthaseActivityDual,
  SynthaseActivityDualv,
  SynthaseActivityDualOnly,
  SynthaseActivityDualvOnly,
  SynthaseActivityDuplicated,
  SynthaseActivityDuplicatedOnly,
  SynthaseActivityFakeActivitySize,
} SynthaseActivityKind;

/* FakeActivitySize without an element size. */
#define SYNTHASE_NO_ELEM_SIZE 0

typedef struct SynthaseOpaqueAutoDiffItem *SynthaseAutoDiffItemRef;

/* ---- Data model ---------------------------------------------------------------------------- */

/* A new item with no input activities and return activity None. Fails (returns NULL and sets
 * *ErrorMessage) on an unknown mode or a zero width. */
SynthaseAutoDiffItemRef SynthaseCreateAutoDiffItem(const char *Source, const char *Target,
                                                   int Mode, unsigned Width,
                                                   char **ErrorMessage);
/* The text form "source=..;target=..;mode=..;width=..;ret=..;args=..". */
SynthaseAutoDiffItemRef SynthaseParseAutoDiffItem(const char *Text, char **ErrorMessage);
void SynthaseDisposeAutoDiffItem(SynthaseAutoDiffItemRef Item);
/* The text form; release with SynthaseDisposeMessage. */
char *SynthasePrintAutoDiffItem(SynthaseAutoDiffItemRef Item);

/* ElemSize is only meaningful for FakeActivitySize (SYNTHASE_NO_ELEM_SIZE for none). */
LLVMBool SynthaseSetReturnActivity(SynthaseAutoDiffItemRef Item, int Kind, char **ErrorMessage);
LLVMBool SynthaseAddInputActivity(SynthaseAutoDiffItemRef Item, int Kind, uint64_t ElemSize,
                                  char **ErrorMessage);

int SynthaseGetMode(SynthaseAutoDiffItemRef Item);
unsigned SynthaseGetWidth(SynthaseAutoDiffItemRef Item);
int SynthaseGetReturnActivity(SynthaseAutoDiffItemRef Item);
unsigned SynthaseGetNumInputActivities(SynthaseAutoDiffItemRef Item);
int SynthaseGetInputActivity(SynthaseAutoDiffItemRef Item, unsigned Index, uint64_t *ElemSize);

/* The engine marker of an activity ("enzyme_dup", ...; "" for None). Static storage. */
const char *SynthaseActivityMarker(int Kind);

void SynthaseDisposeMessage(char *Message);

/* ---- Call generation ------------------------------------------------------------------------ */

/* generate_enzyme_call: Builder is positioned in the placeholder; FnToDiff is the function to
 * differentiate; the call goes to __enzyme_autodiff<OuterName> / __enzyme_fwddiff<OuterName>
 * returning RetTy; Args are the placeholder's arguments; the result is stored to Dest unless it
 * is NULL. CheckSliceLengths adds the runtime shadow-length guard. *Call receives the call. */
LLVMBool SynthaseGenerateEnzymeCall(LLVMBuilderRef Builder, LLVMValueRef FnToDiff,
                                    const char *OuterName, LLVMTypeRef RetTy, LLVMValueRef *Args,
                                    unsigned NumArgs, SynthaseAutoDiffItemRef Item,
                                    LLVMValueRef Dest, LLVMBool CheckSliceLengths,
                                    LLVMValueRef *Call, char **ErrorMessage);

/* ---- Whole module --------------------------------------------------------------------------- */

/* Fills the placeholders with engine calls and marks source and target (no lowering). */
LLVMBool SynthaseExpandItems(LLVMModuleRef M, SynthaseAutoDiffItemRef *Items, unsigned NumItems,
                             LLVMBool CheckSliceLengths, char **ErrorMessage);

/* differentiate: refuses unless AutodiffEnabled; expands the items, then lowers every AD call
 * site of the module with the engine. Engine errors come back in *ErrorMessage. */
LLVMBool SynthaseDifferentiate(LLVMModuleRef M, SynthaseAutoDiffItemRef *Items, unsigned NumItems,
                               LLVMBool AutodiffEnabled, LLVMBool CheckSliceLengths,
                               char **ErrorMessage);

/* Expands the declarative attributes and annotations of M (no lowering). Returns 1 on failure,
 * with the diagnostics in *ErrorMessage. */
LLVMBool SynthaseExpandDeclarativeItems(LLVMModuleRef M, char **ErrorMessage);

#ifdef __cplusplus
}
#endif

#endif /* SYNTHASE_C_H */
