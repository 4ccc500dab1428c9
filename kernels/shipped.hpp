#pragma once
// The kernels kernbench ships (one file each under kernels/), and the
// shipped programs that live in their own file.

#include "kernels/registry.hpp"

#include <vector>

namespace kb {

kernel_def gemm_kernel();
kernel_def gemm_pipelined_kernel();
kernel_def gemm_bias_relu_kernel();
kernel_def softmax_kernel();
kernel_def layernorm_kernel();
kernel_def eltwise_chain_kernel();
kernel_def flash_attention_kernel();
kernel_def gemm_splitk_kernel();

std::vector<kernel_def> shipped_kernel_list();

struct program_def;
program_def decoder_layer_program(); // kernels/decoder_layer.cpp

} // namespace kb
