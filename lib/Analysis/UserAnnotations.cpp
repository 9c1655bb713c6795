#include "Analysis/UserAnnotations.h"
#include "Rules/Rules.h"
#include "Support/Diagnostics.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace synthase {

// Kept out of line so the attribute is seen where the function is called: an inlined inactive
// function would be differentiated after all, an inlined function-like one lose its rule.
static void keepOutOfLine(Function &F) {
  F.removeFnAttr(Attribute::AlwaysInline);
  F.addFnAttr(Attribute::NoInline);
}

static void markInactive(Function &F, bool Noblock) {
  F.addFnAttr(AttrInactive);
  if (Noblock)
    F.addFnAttr(AttrInactiveNoblock);
  keepOutOfLine(F);
}

/// Gives F the rule of Name, or says why it cannot.
static bool markFunctionLike(Function &F, StringRef Name, std::string &Why) {
  StringRef Canon = canonicalMathName(Name);
  if (Canon.empty()) {
    Why = ("'" + Name + "' has no derivative rule in Synthase's table (docs/rules.md lists the "
                        "functions it knows, e.g. \"log1p\", \"exp\", \"sqrt\", \"pow\")")
              .str();
    return false;
  }
  unsigned Arity = mathRuleArity(Canon);
  bool Fits = F.arg_size() >= Arity && (Arity == 0 || F.getReturnType()->isFPOrFPVectorTy());
  for (unsigned K = 0; Fits && K < Arity; ++K)
    Fits = F.getArg(K)->getType()->isFPOrFPVectorTy();
  if (!Fits) {
    Why = ("'" + F.getName() + "' does not have the shape of '" + Canon + "': the rule needs " +
           Twine(Arity) + " leading floating-point argument(s) and a floating-point result")
              .str();
    return false;
  }
  F.addFnAttr(AttrFunctionLike, Name);
  keepOutOfLine(F);
  return true;
}

static void bad(Module &M, GlobalVariable &G, const Twine &Why, const Twine &Hint) {
  G.setMetadata("synthase.malformed", MDNode::get(M.getContext(), {}));
  reportModuleError(M, "'" + G.getName() + "' is malformed: " + Why, Hint);
}

/// The pointers a registration holds: one pointer, or an array (or struct) of them.
static SmallVector<Constant *, 4> entries(Constant *Init) {
  SmallVector<Constant *, 4> V;
  if (auto *CA = dyn_cast<ConstantAggregate>(Init))
    for (Use &U : CA->operands())
      V.push_back(cast<Constant>(U.get()));
  else
    V.push_back(Init);
  return V;
}

static void readRegistration(Module &M, GlobalVariable &G) {
  StringRef N = G.getName();
  bool Fn = N.contains("__enzyme_inactivefn"), Noblock = N.contains("__enzyme_inactivenoblockfn");
  bool Global = N.contains("__enzyme_inactive_global"), Like = N.contains("__enzyme_function_like");
  bool NoFree = N.contains("__enzyme_nofree");
  if (!(Fn || Noblock || Global || Like || NoFree) || !G.hasInitializer() ||
      G.getMetadata("synthase.malformed"))
    return;
  SmallVector<Constant *, 4> E = entries(G.getInitializer());
  if (Like) {
    auto *F = E.size() == 2 ? dyn_cast<Function>(E[0]->stripPointerCastsAndAliases()) : nullptr;
    StringRef Name;
    if (!F || !getConstantStringInfo(E[1], Name) || Name.empty())
      return bad(M, G, "it must hold a function and the name of a function with a rule",
                 "write void *__enzyme_function_like[2] = {(void *)mylog1p, (void *)\"log1p\"};");
    std::string Why;
    if (!markFunctionLike(*F, Name, Why))
      bad(M, G, Why, "name a function of the rule table, with the same arguments");
    return;
  }
  for (Constant *C : E) {
    Value *V = C->stripPointerCastsAndAliases();
    if (Global) {
      if (auto *GV = dyn_cast<GlobalVariable>(V)) {
        GV->setMetadata(MDInactiveGlobal, MDNode::get(M.getContext(), {}));
        continue;
      }
      return bad(M, G, "an entry is not the address of a global variable",
                 "write void *__enzyme_inactive_global[] = {(void *)&my_global};");
    }
    auto *F = dyn_cast<Function>(V);
    if (!F)
      return bad(M, G, "an entry is not a function",
                 "write void *" + N + "[] = {(void *)my_function};");
    if (NoFree)
      F->addFnAttr(Attribute::NoFree);
    else
      markInactive(*F, Noblock);
  }
}

/// `__attribute__((enzyme_shadow(s)))` on G: s (by its symbol name) is G's shadow, of G's type.
static void nameShadow(Module &M, GlobalVariable &G, StringRef Name) {
  if (G.getMetadata(MDShadowGlobal))
    return; // clang runs the pass twice
  GlobalVariable *S = M.getGlobalVariable(Name, true);
  const DataLayout &DL = M.getDataLayout();
  if (!S || S == &G || S->isConstant() ||
      DL.getTypeAllocSize(S->getValueType()) != DL.getTypeAllocSize(G.getValueType())) {
    reportModuleError(M, "enzyme_shadow on '" + G.getName() + "' names '" + Name +
                             "', which is not a writable global of the same size in this module",
                      "write __attribute__((enzyme_shadow(g_shadow))) with g_shadow a global of g's type, "
                      "defined in the same file");
    return;
  }
  G.setMetadata(MDShadowGlobal, MDNode::get(M.getContext(), {ConstantAsMetadata::get(S)}));
}

/// @llvm.global.annotations entries: {ptr value, ptr string, ptr file, i32 line, ptr args}.
static void readAnnotations(Module &M) {
  GlobalVariable *A = M.getGlobalVariable("llvm.global.annotations");
  if (!A || !A->hasInitializer())
    return;
  auto *CA = dyn_cast<ConstantArray>(A->getInitializer());
  if (!CA)
    return;
  for (Use &U : CA->operands()) {
    auto *CS = dyn_cast<ConstantStruct>(U.get());
    StringRef S;
    if (!CS || CS->getNumOperands() < 2 || !getConstantStringInfo(CS->getOperand(1), S) ||
        !S.starts_with("enzyme_"))
      continue;
    Value *V = CS->getOperand(0)->stripPointerCastsAndAliases();
    if (auto *GV = dyn_cast<GlobalVariable>(V)) {
      if (S == "enzyme_inactive")
        GV->setMetadata(MDInactiveGlobal, MDNode::get(M.getContext(), {}));
      else if (S.consume_front("enzyme_shadow="))
        nameShadow(M, *GV, S);
      continue;
    }
    auto *F = dyn_cast<Function>(V);
    if (!F)
      continue;
    if (S == "enzyme_inactivefn" || S == "enzyme_inactivenoblockfn")
      markInactive(*F, S == "enzyme_inactivenoblockfn");
    else if (S == "enzyme_nofree")
      F->addFnAttr(Attribute::NoFree);
    else if (S.consume_front("enzyme_function_like=") && !F->hasFnAttribute(AttrFunctionLike) &&
             !F->hasFnAttribute("synthase.malformed")) {
      std::string Why;
      if (!markFunctionLike(*F, S, Why)) {
        F->addFnAttr("synthase.malformed"); // clang runs the pass twice: report once
        reportError(F, nullptr, "enzyme_function_like(\"" + S + "\") on '" + F->getName() +
                                    "' cannot be used: " + Why,
                    "name a function of the rule table, with the same arguments");
      }
    }
  }
}

void applyUserAnnotations(Module &M) {
  for (GlobalVariable &G : M.globals())
    readRegistration(M, G);
  readAnnotations(M);
}

} // namespace synthase
