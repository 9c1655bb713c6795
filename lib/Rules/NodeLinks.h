// libstdc++'s out-of-line node-linking helpers of std::map / std::set / std::multimap (the
// red-black tree: _Rb_tree_insert_and_rebalance, _Rb_tree_rebalance_for_erase, _Rb_tree_increment,
// _Rb_tree_decrement) and std::list (_List_node_base::_M_hook, _M_unhook, _M_transfer, _M_reverse,
// swap). They only move pointers (and the tree's colours), so their derivative is the same call on
// the shadow structure: shadow node, shadow parent, shadow header. The shadow tree or list then
// mirrors the primal one and values read back through it find their shadows.
#pragma once
#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"

namespace synthase {

class Engine;
struct Signature;
struct GradientPair;
enum class ArgKind;

/// True for a declaration of one of the helpers above, with the expected parameters.
bool isNodeLinkHelper(const llvm::Function *F);

/// Marks the helpers M declares as callees with a derivative (the custom-derivative attributes,
/// which activity analysis and both generators read), when M has AD entry points.
void markNodeLinkHelpers(llvm::Module &M);

/// Forward mode: calls the helper on the primal structure, then on each lane's shadow structure
/// (skipped for a lane whose shadow arguments are null). Same signature as Engine::tangentFunction.
llvm::Function *nodeLinkTangent(Engine &E, const Signature &S);
/// Reverse mode: the augmented function does what the tangent function does; the reverse function
/// does nothing (the links carry no derivative; shadow nodes are freed at the reverse of their
/// allocation, after every adjoint that reads them).
GradientPair nodeLinkGradient(Engine &E, const Signature &S);

/// A call that links nodes with shadows into a structure without one (or the reverse) would leave
/// the shadow structure out of step with the primal one: refused with a diagnostic (a custom
/// allocator whose memory has no shadow, a container in enzyme_const memory given new nodes).
/// In reverse mode, a copy of a whole tree (std::map / std::set copy construction or assignment,
/// libstdc++'s recursive _Rb_tree::_M_copy) is refused too: it copies each value as bytes whose
/// types nothing in that function shows, so their adjoints would not be moved back (forward mode
/// moves the shadow bytes whatever they hold). True when the call is none of these.
bool checkNodeLinkCall(const llvm::Function *Caller, const llvm::CallBase *CB, llvm::ArrayRef<ArgKind> Acts,
                       bool Reverse);

} // namespace synthase
