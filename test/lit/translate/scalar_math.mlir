// RUN: dpl-translate --to-cuda %s | filecheck %s
// The scalar math of the frontend's pointwise ops: fmod (arith.remf), round half to even
// (math.roundeven -> rintf, not roundf), expm1, log1p, the inverse hyperbolics, and bool
// values named after C++'s alternative tokens (`or`, `xor`, `not`) renamed.

kernel.func @k_scalar_math(%x: memref<256xf32>, %y: memref<256xf32>, %out: memref<256xf32>, %or: memref<256xi1>) grid [1, 1, 1] block [256, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %a = kernel.load %x[%t] : memref<256xf32>
  %b = kernel.load %y[%t] : memref<256xf32>
  %fm = arith.remf %a, %b : f32
  %re = math.roundeven %fm : f32
  %em = math.expm1 %re : f32
  %lp = math.log1p %em : f32
  %as = math.asinh %lp : f32
  %ac = math.acosh %as : f32
  %at = math.atanh %ac : f32
  %fl = math.floor %at : f32
  %ce = math.ceil %fl : f32
  %tr = math.trunc %ce : f32
  kernel.store %tr, %out[%t] : memref<256xf32>
  %zero = arith.constant 0.0 : f32
  %xor = arith.cmpf olt, %a, %zero : f32
  %not = arith.cmpf olt, %b, %zero : f32
  %either = arith.ori %xor, %not : i1
  kernel.store %either, %or[%t] : memref<256xi1>
}
// CHECK-LABEL: void k_scalar_math(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, bool* __restrict__ or_1)
// CHECK:         float fm = fmodf(a, b);
// CHECK-NEXT:    float re = rintf(fm);
// CHECK-NEXT:    float em = expm1f(re);
// CHECK-NEXT:    float lp = log1pf(em);
// CHECK-NEXT:    float as = asinhf(lp);
// CHECK-NEXT:    float ac = acoshf(as);
// CHECK-NEXT:    float at = atanhf(ac);
// CHECK-NEXT:    float fl = floorf(at);
// CHECK-NEXT:    float ce = ceilf(fl);
// CHECK-NEXT:    float tr = truncf(ce);
// CHECK:         bool xor_1 = a < 0.0f;
// CHECK-NEXT:    bool not_1 = b < 0.0f;
// CHECK-NEXT:    bool either = xor_1 | not_1;
// CHECK-NEXT:    or_1[t] = either;
