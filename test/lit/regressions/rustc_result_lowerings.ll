; rustc lowers a `#[repr(C)]` result struct differently from clang, and the result-shape check
; (CallChecks.cpp) must accept its forms: a pair of f32 comes back as one `double` (an SSE
; eightbyte), which rustc bitcasts (optimized) or spills and reloads as two floats (-O0), and
; three f64 come back through an sret buffer typed `[24 x i8]`. The same `double` used as a
; double, as a C prototype would, is refused (diagnostics/result_shape_reverse.c, FLOATS_IN_DOUBLE).
; f(a, b) = a b^3 (f32): d/da = b^3, d/db = 3 a b^2 at (a, b) = (2, 0.5): 0.125 and 1.5.
; g(x, y, z) = x y z (f64) at (1, 2, 3): (6, 3, 2).
; RUN: %synthase-opt %s -o %t.bc && %clang %t.bc -o %t && %t
@enzyme_out = external global i32

define internal float @f(float %a, float %b) {
  %b2 = fmul float %b, %b
  %b3 = fmul float %b2, %b
  %r = fmul float %a, %b3
  ret float %r
}

define internal double @g(double %x, double %y, double %z) {
  %xy = fmul double %x, %y
  %r = fmul double %xy, %z
  ret double %r
}

declare double @__enzyme_autodiff_pair(ptr, ...)
declare void @__enzyme_autodiff_three(ptr, ...)
declare void @abort()

define i32 @main() {
start:
  ; optimized rustc: the double is reinterpreted through i64
  %r1 = call double (ptr, ...) @__enzyme_autodiff_pair(ptr @f, ptr @enzyme_out, double 2.0, ptr @enzyme_out, double 0.5)
  %bits = bitcast double %r1 to i64
  %lo = trunc i64 %bits to i32
  %hi64 = lshr i64 %bits, 32
  %hi = trunc i64 %hi64 to i32
  %da = bitcast i32 %lo to float
  %db = bitcast i32 %hi to float
  ; rustc -O0: spilled to a byte buffer, copied, reloaded as two floats
  %spill = alloca [8 x i8], align 8
  %copy = alloca [8 x i8], align 4
  %r2 = call double (ptr, ...) @__enzyme_autodiff_pair(ptr @f, ptr @enzyme_out, double 2.0, ptr @enzyme_out, double 0.5)
  store double %r2, ptr %spill, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %copy, ptr align 8 %spill, i64 8, i1 false)
  %da2 = load float, ptr %copy, align 4
  %p4 = getelementptr inbounds i8, ptr %copy, i64 4
  %db2 = load float, ptr %p4, align 4
  ; three f64 through a [24 x i8] sret buffer
  %out = alloca [24 x i8], align 8
  call void (ptr, ...) @__enzyme_autodiff_three(ptr sret([24 x i8]) %out, ptr @g, ptr @enzyme_out, double 1.0, ptr @enzyme_out, double 2.0, ptr @enzyme_out, double 3.0)
  %gx = load double, ptr %out
  %py = getelementptr inbounds i8, ptr %out, i64 8
  %gy = load double, ptr %py
  %pz = getelementptr inbounds i8, ptr %out, i64 16
  %gz = load double, ptr %pz
  %c1 = fcmp oeq float %da, 0.125
  %c2 = fcmp oeq float %db, 1.5
  %c3 = fcmp oeq float %da2, 0.125
  %c4 = fcmp oeq float %db2, 1.5
  %c5 = fcmp oeq double %gx, 6.0
  %c6 = fcmp oeq double %gy, 3.0
  %c7 = fcmp oeq double %gz, 2.0
  %a1 = and i1 %c1, %c2
  %a2 = and i1 %a1, %c3
  %a3 = and i1 %a2, %c4
  %a4 = and i1 %a3, %c5
  %a5 = and i1 %a4, %c6
  %a6 = and i1 %a5, %c7
  br i1 %a6, label %ok, label %bad
ok:
  ret i32 0
bad:
  call void @abort()
  unreachable
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
