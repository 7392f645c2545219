// RUN: dpl-translate --to-cuda %s | filecheck %s
// f64 element type, a 2-D block, max/min accumulators, and the arith/math ops the printer knows.

kernel.func @k_f64_ops(%x: memref<8x256xf64>, %y: memref<8x256xf64>, %idx: memref<8x256xi64>) grid [8, 1, 1] block [32, 8, 1] smem 0 {
  %one = arith.constant 1.0 : f64
  %half = arith.constant 0.5 : f64
  %two = arith.constant 2 : i64
  %row = kernel.block_id x
  %tx = kernel.thread_id x
  %ty = kernel.thread_id y
  %bdx = kernel.block_dim x
  %lane = kernel.lane_id
  %tyb = arith.muli %ty, %bdx : index
  %col = arith.addi %tyb, %tx : index
  %v = kernel.load %x[%row, %col] : memref<8x256xf64>
  %mx, %mn = kernel.for %j = 0 to 256 step 1 unroll 8 -> f64, f64 {
    %e = kernel.load %x[%row, %j] : memref<8x256xf64>
    %ab = math.absf %e : f64
    kernel.accumulate max %e, min %ab : f64, f64
  }
  %d = arith.subf %v, %mx : f64
  %ex = math.exp %d : f64
  %th = math.tanh %ex : f64
  %er = math.erf %th : f64
  %ab1 = arith.addf %mn, %one : f64
  %lg = math.log %ab1 : f64
  %cs = math.cos %lg : f64
  %sn = math.sin %cs : f64
  %pw = math.powf %sn, %half : f64
  %fm = math.fma %pw, %er, %one : f64
  %sq = math.sqrt %fm : f64
  %dv = arith.divf %sq, %ab1 : f64
  %ng = arith.negf %dv : f64
  %mi = arith.minimumf %ng, %v : f64
  %gt = arith.cmpf ogt, %v, %mn : f64
  %sel = arith.select %gt, %mi, %er : f64
  %i = arith.index_cast %col : index to i64
  %q = arith.floordivsi %i, %two : i64
  %r = arith.remsi %i, %two : i64
  %m = arith.muli %q, %two : i64
  %s = arith.addi %m, %r : i64
  %u = arith.subi %s, %r : i64
  %f = arith.sitofp %u : i64 to f64
  %out = arith.addf %sel, %f : f64
  kernel.store %out, %y[%row, %col] : memref<8x256xf64>
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %lane, %c0 : index
  kernel.if %first {
    kernel.store %u, %idx[%row, %col] : memref<8x256xi64>
  } else {
    kernel.store %r, %idx[%row, %col] : memref<8x256xi64>
  }
}

// CHECK:      __launch_bounds__(256) void k_f64_ops(const double* __restrict__ x, double* __restrict__ y, long long* __restrict__ idx) {
// CHECK:          int lane = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31;
// CHECK:          double mx = __longlong_as_double(0xfff0000000000000LL);
// CHECK-NEXT:     double mn = __longlong_as_double(0x7ff0000000000000LL);
// CHECK-NEXT:     #pragma unroll 8
// CHECK-NEXT:     for (int j = 0; j < 256; j++) {
// CHECK-NEXT:         double e = x[row * 256 + j];
// CHECK-NEXT:         double ab = fabs(e);
// CHECK-NEXT:         mx = fmax(mx, e);
// CHECK-NEXT:         mn = fmin(mn, ab);
// CHECK-NEXT:     }
// CHECK:          double ex = exp(d);
// CHECK-NEXT:     double th = tanh(ex);
// CHECK-NEXT:     double er = erf(th);
// CHECK-NEXT:     double ab1 = mn + 1.0;
// CHECK-NEXT:     double lg = log(ab1);
// CHECK:          double pw = pow(sn, 0.5);
// CHECK-NEXT:     double fm = fma(pw, er, 1.0);
// CHECK-NEXT:     double sq = sqrt(fm);
// CHECK-NEXT:     double dv = sq / ab1;
// CHECK-NEXT:     double ng = -dv;
// CHECK-NEXT:     double mi = fmin(ng, v);
// CHECK-NEXT:     bool gt = v > mn;
// CHECK-NEXT:     double sel = gt ? mi : er;
// CHECK-NEXT:     long long i = (long long)col;
// CHECK-NEXT:     long long q = dpl_floordiv(i, 2LL);
// CHECK-NEXT:     long long r = i % 2LL;
// CHECK:          double f = (double)u;
// CHECK:          if (first) {
// CHECK-NEXT:         idx[row * 256 + col] = u;
// CHECK-NEXT:     } else {
// CHECK-NEXT:         idx[row * 256 + col] = r;
// CHECK-NEXT:     }
