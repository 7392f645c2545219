"""NVRTC from the nvidia-cuda-nvrtc wheel (unzipped to /tmp/nvrtcx) on a machine with no GPU:
python3 nvrtc_local.py FILE.cu [OPTIONS|-] ..: registers and spills per option set (session 12)."""
import sys, ctypes
ctypes.CDLL("/tmp/nvrtcx/nvidia/cu13/lib/libnvrtc-builtins.so.13.0", mode=ctypes.RTLD_GLOBAL)
ctypes.CDLL("/tmp/nvrtcx/nvidia/cu13/lib/libnvrtc.so.13", mode=ctypes.RTLD_GLOBAL)
from cuda.bindings import nvrtc
src = open(sys.argv[1]).read()
def comp(opts, ptx=False):
    _, prog = nvrtc.nvrtcCreateProgram(src.encode(), b"k.cu", 0, [], [])
    st = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])[0]
    _, n = nvrtc.nvrtcGetProgramLogSize(prog)
    buf = b" " * n
    nvrtc.nvrtcGetProgramLog(prog, buf)
    log = buf.decode()
    out = None
    if ptx:
        _, n = nvrtc.nvrtcGetPTXSize(prog); out = b" " * n; nvrtc.nvrtcGetPTX(prog, out)
    return st, log, out
if __name__ == "__main__":
    print(nvrtc.nvrtcVersion())
    for extra in sys.argv[2:]:
        opts = ["-arch=sm_90", "--std=c++17", "-Xptxas", "-v"] + (extra.split() if extra != "-" else [])
        st, log, _ = comp(opts)
        print(extra, [l.strip() for l in log.splitlines() if "Used" in l or "spill" in l])
