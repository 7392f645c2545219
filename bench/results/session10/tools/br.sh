#!/bin/bash
# .gpu/br.sh NAME cmd...: run cmd in .gpu/br/NAME with dpl imported from there
name=$1; shift
mkdir -p /tmp/br_$name && ln -sfn $PWD/.gpu/br/$name /tmp/br_$name/dpl
cd .gpu/br/$name && PYTHONPATH=/tmp/br_$name:$PYTHONPATH "$@"
