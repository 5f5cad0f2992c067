// Each warp reduction once, on a value loaded from memory and a mask passed
// as a kernel parameter, so that the PTX shows which register is which.
__global__ void reduce_all(const unsigned *in, unsigned *out, unsigned mask) {
  unsigned value = in[threadIdx.x];
  int signed_value = (int)value;
  out[0] = __reduce_add_sync(mask, value);
  out[1] = __reduce_min_sync(mask, value);
  out[2] = __reduce_max_sync(mask, value);
  out[3] = __reduce_min_sync(mask, signed_value);
  out[4] = __reduce_max_sync(mask, signed_value);
  out[5] = __reduce_and_sync(mask, value);
  out[6] = __reduce_or_sync(mask, value);
  out[7] = __reduce_xor_sync(mask, value);
  out[8] = __reduce_add_sync(mask, signed_value);
}
