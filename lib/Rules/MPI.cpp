// Registration of the MPI runtime's derivatives (see MPI.h and runtime/mpi/SynthaseMPI.c).
// OpenMPI's handles (MPI_DOUBLE, MPI_COMM_WORLD, MPI_SUM) are addresses of its predefined
// globals (ompi_mpi_double, ...): as arguments they are constants without a shadow, so the
// runtime receives them unchanged and a null in their shadow position.
#include "Rules/MPI.h"
#include "Rules/CustomDerivatives.h"
#include "Rules/RuntimeRules.h"
#include "Support/Diagnostics.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstrTypes.h"

using namespace llvm;

namespace synthase {
namespace {

struct MPIRule {
  const char *Name;  ///< the MPI function
  const char *Stem;  ///< __synthase_mpi_<Stem>_{fwd,aug,rev} in the runtime
  unsigned Params;   ///< its parameter count, as a check of the declaration
  int Op = -1;       ///< the MPI_Op parameter, if any
};

const MPIRule Rules[] = {
    {"MPI_Send", "send", 6},           {"MPI_Recv", "recv", 7},
    {"MPI_Sendrecv", "sendrecv", 12},  {"MPI_Isend", "isend", 7},
    {"MPI_Irecv", "irecv", 7},         {"MPI_Wait", "wait", 2},
    {"MPI_Waitall", "waitall", 3},     {"MPI_Bcast", "bcast", 5},
    {"MPI_Reduce", "reduce", 7, 4},    {"MPI_Allreduce", "allreduce", 6, 4},
    {"MPI_Gather", "gather", 8},       {"MPI_Scatter", "scatter", 8},
    {"MPI_Allgather", "allgather", 7}, {"MPI_Alltoall", "alltoall", 7},
    {"MPI_Alltoallv", "alltoallv", 9},
};

const MPIRule *ruleFor(StringRef N) {
  for (const MPIRule &R : Rules)
    if (N == R.Name)
      return &R;
  return nullptr;
}

} // namespace

void registerMPIDerivatives(Module &M) {
  if (!hasEntryPoints(M))
    return;
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C), *I32 = Type::getInt32Ty(C), *I64 = Type::getInt64Ty(C);
  for (const MPIRule &R : Rules) {
    Function *F = M.getFunction(R.Name);
    if (!F || !F->isDeclaration() || F->getFunctionType()->getNumParams() != R.Params ||
        !F->getReturnType()->isIntegerTy(32) || none_of(F->users(), [](User *U) { return isa<CallBase>(U); }))
      continue;
    SmallVector<Type *, 16> Doubled;
    for (Type *P : F->getFunctionType()->params())
      Doubled.append(2, P);
    SmallVector<Type *, 16> RevParams(Doubled);
    RevParams.push_back(Ptr);
    registerRuntimeRule(M, F, ("__synthase_mpi_" + Twine(R.Stem)).str(), FunctionType::get(I64, Doubled, false),
                        FunctionType::get(StructType::get(C, {Ptr, I32}), Doubled, false),
                        FunctionType::get(Type::getVoidTy(C), RevParams, false));
  }
}

bool isInactiveMPICall(StringRef N) {
  return StringSwitch<bool>(N)
      .Cases({"MPI_Comm_rank", "MPI_Comm_size", "MPI_Barrier", "MPI_Init", "MPI_Init_thread"}, true)
      .Cases({"MPI_Finalize", "MPI_Initialized", "MPI_Finalized", "MPI_Wtime", "MPI_Wtick"}, true)
      .Cases({"MPI_Abort", "MPI_Get_processor_name", "MPI_Comm_dup", "MPI_Comm_split"}, true)
      .Cases({"MPI_Comm_free", "MPI_Get_count", "MPI_Type_size", "MPI_Query_thread"}, true)
      .Default(false);
}

bool explainUnsupportedMPI(const CallBase *CB, std::string &Msg, std::string &Hint) {
  const Function *G = CB->getCalledFunction();
  if (!G || !G->getName().starts_with("MPI_"))
    return false;
  StringRef N = G->getName();
  if (N.starts_with("MPI_Win_") || N == "MPI_Put" || N == "MPI_Get" || N == "MPI_Accumulate" ||
      N == "MPI_Get_accumulate" || N == "MPI_Rput" || N == "MPI_Rget") {
    Msg = ("one-sided MPI communication (" + N + ") has no derivative").str();
    Hint = "exchange the data with MPI_Send/MPI_Recv, MPI_Isend/MPI_Irecv or a collective inside the "
           "differentiated code";
  } else if (N.starts_with("MPI_Op_")) {
    Msg = ("custom MPI reduction operations (" + N + ") have no derivative").str();
    Hint = "reduce with MPI_SUM, MPI_MAX or MPI_MIN";
  } else if (N.starts_with("MPI_Type_")) {
    Msg = ("derived MPI datatypes (" + N + ") have no derivative").str();
    Hint = "communicate MPI_DOUBLE or MPI_FLOAT arrays (pack strided data into a contiguous buffer)";
  } else if (ruleFor(N)) {
    Msg = ("the MPI derivatives of " + N + " are not registered in this module").str();
    Hint = "declare it through <mpi.h> (the prototype must match)";
  } else {
    Msg = ("MPI call " + N + " has no derivative").str();
    Hint = "supported: MPI_Send/Recv, Isend/Irecv/Wait/Waitall, Sendrecv, Bcast, Reduce/Allreduce "
           "(SUM, MAX, MIN), Gather/Scatter/Allgather, Alltoall/Alltoallv, Barrier and communicator queries";
  }
  return true;
}

bool checkMPICall(const Function *Fn, const CallBase *CB) {
  const Function *G = CB->getCalledFunction();
  const MPIRule *R = G ? ruleFor(G->getName()) : nullptr;
  if (!R || R->Op < 0 || (unsigned)R->Op >= CB->arg_size())
    return true;
  auto *Op = dyn_cast<GlobalValue>(CB->getArgOperand(R->Op)->stripPointerCasts());
  if (!Op || !Op->getName().starts_with("ompi_mpi_op_"))
    return true; // a runtime value: the runtime checks it (a user operation stops the program)
  StringRef Kind = Op->getName().drop_front(strlen("ompi_mpi_op_"));
  if (Kind == "sum" || Kind == "max" || Kind == "min")
    return true;
  reportError(Fn, CB,
              "cannot differentiate " + G->getName() + " with MPI_" + Kind.upper() +
                  ": only MPI_SUM, MPI_MAX and MPI_MIN reductions have derivatives",
              "reduce with MPI_SUM (a product: sum the logarithms) or compute the reduction locally");
  return false;
}

} // namespace synthase
