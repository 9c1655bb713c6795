// Call-site checks that need more than the operand list: whether the type the user declared for
// the entry point's result holds exactly what the derivative produces, and whether each shadow
// has the element type of its primal. A mismatch is a diagnostic, never a silently wrong number.
#pragma once
#include "CallSite/DiffCall.h"

namespace synthase {
class Engine;

/// The declared result (the entry point's return type, or its sret buffer) must hold exactly the
/// parts the call produces, in natural struct layout: the primal with enzyme_primal_return, then
/// one tangent per lane (forward) or the adjoint of each enzyme_out argument (reverse). A single
/// float part may go into any float type. Returns false after reporting a mismatch.
bool checkResultShape(const DiffCall &DC);

/// A shadow whose object is visibly of another float type than its primal (a `float g[2]` as
/// the shadow of memory the function reads as double) is refused. The primal's type comes from
/// the function's own loads and stores through the parameter, else from the object the primal
/// points to; the shadow's from the object it points to. Returns false after reporting.
bool checkShadowTypes(const DiffCall &DC, Engine &E);

} // namespace synthase
