# CMake toolchain file: a CUDA project builds with kosan by naming this one
# file, with or without CUDA_SEPARABLE_COMPILATION:
#
#   cmake -DCMAKE_TOOLCHAIN_FILE=<kosan>/share/kosan/kosan.cmake ...
#
# It sets the CUDA compiler to kosan-clang++ (CMake identifies it as Clang)
# and CUDAToolkit_ROOT to the toolkit as kosan-clang++ gives it to clang: for
# separable compilation CMake runs the toolkit's nvlink and fatbinary itself,
# and CUDA 13's fatbinary needs kosan's wrapper of it. A CUDAToolkit_ROOT or
# CMAKE_CUDA_COMPILER the user sets wins.
get_filename_component(_kosan_prefix "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
if(NOT CMAKE_CUDA_COMPILER)
  set(CMAKE_CUDA_COMPILER "${_kosan_prefix}/bin/kosan-clang++")
endif()
if(NOT CUDAToolkit_ROOT AND NOT DEFINED ENV{CUDAToolkit_ROOT})
  execute_process(COMMAND "${_kosan_prefix}/bin/kosan-clang++" --kosan-print-cuda-path
    OUTPUT_VARIABLE _kosan_cuda OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _kosan_status ERROR_VARIABLE _kosan_error)
  if(NOT _kosan_status EQUAL 0)
    message(FATAL_ERROR "kosan: cannot find the CUDA toolkit: ${_kosan_error}")
  endif()
  set(CUDAToolkit_ROOT "${_kosan_cuda}" CACHE PATH "CUDA toolkit as kosan gives it to clang")
endif()
