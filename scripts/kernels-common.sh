# scripts/kernels-common.sh: sourced by test-kernels.sh and kernels-repro.sh:
# the OpenBLAS kernels they force and which of them this CPU can execute.
# Defines KERNELS, needs KERNEL (the flags), missing KERNEL (those this CPU
# lacks: empty when it can run it) and $flags.

# The kernels of Debian 12's OpenBLAS 0.3.21 (DYNAMIC_ARCH) for x86-64
# generations, and the /proc/cpuinfo flags each one's code needs (the -m
# options OpenBLAS compiles that kernel with; SSE3 is "pni"). Zen reuses the
# Haswell kernels; Cooperlake is SkylakeX plus AVX512-BF16.
KERNELS="Prescott Nehalem Sandybridge Haswell Zen SkylakeX Cooperlake"
needs() {
  case $1 in
  Prescott) echo "sse2 pni" ;;
  Nehalem) echo "sse2 pni ssse3 sse4_1 sse4_2" ;;
  Sandybridge) echo "sse2 pni ssse3 sse4_1 sse4_2 avx" ;;
  Haswell | Zen) echo "sse2 pni ssse3 sse4_1 sse4_2 avx avx2 fma" ;;
  SkylakeX) echo "sse2 pni ssse3 sse4_1 sse4_2 avx avx2 fma avx512f avx512cd avx512bw avx512dq avx512vl" ;;
  Cooperlake) echo "sse2 pni ssse3 sse4_1 sse4_2 avx avx2 fma avx512f avx512cd avx512bw avx512dq avx512vl avx512_bf16" ;;
  *) return 1 ;;
  esac
}

flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
missing() { # the flags of kernel $1 this CPU lacks
  local out="" f
  for f in $(needs "$1"); do
    case $flags in *" $f "*) ;; *) out="$out $f" ;; esac
  done
  echo "${out# }"
}

