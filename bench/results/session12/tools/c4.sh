. scripts/gpu-env.sh
export XDG_CACHE_HOME=/tmp/cache4
timeout 400 python3 .gpu/s12/att1.py 2>&1 | grep -v -i warn | tee $OUT/att2.txt
