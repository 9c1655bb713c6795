#include "Engine/Engine.h"
using namespace llvm;
namespace synthase {
GradientPair Engine::gradientPair(const Signature &S) { return {}; }
}
