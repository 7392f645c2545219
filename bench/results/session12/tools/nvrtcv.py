"""NVRTC's version and ptxas -v of a CUDA file, as dpl's runtime compiles it."""
import sys
from cuda.bindings import nvrtc
print("nvrtc", nvrtc.nvrtcVersion())
src = open(sys.argv[1]).read()
for opts in (["-arch=sm_90", "--std=c++17", "-Xptxas", "-v"], ["-arch=sm_90a", "--std=c++17", "-Xptxas", "-v"]):
    _, prog = nvrtc.nvrtcCreateProgram(src.encode(), b"k.cu", 0, [], [])
    st = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])[0]
    _, n = nvrtc.nvrtcGetProgramLogSize(prog)
    buf = b" " * n
    nvrtc.nvrtcGetProgramLog(prog, buf)
    print(opts, st, buf.decode()[-600:])
