/*===- texture_fetch_functions.h - Stand-in for a header CUDA 13 removed ---===
 *
 * clang 19's CUDA wrapper header includes texture_fetch_functions.h
 * unconditionally, but CUDA 13 removed it together with texture references.
 * kosan-clang++ puts this directory on an -isystem path ahead of CUDA's own
 * headers, so the toolkit's copy, where there is one (CUDA 12), is used
 * instead of this empty stand-in.
 *
 *===------------------------------------------------------------------------===*/
#if __has_include_next(<texture_fetch_functions.h>)
#include_next <texture_fetch_functions.h>
#endif
