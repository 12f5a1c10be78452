/* legacydoc test fixture: stands for a cuDNN 8 cudnn.h, which keeps its version elsewhere. */
#if !defined(CUDNN_H_)
#define CUDNN_H_

#include <cuda_runtime.h>
#include <stdint.h>

#include "cudnn_version.h"
#include "cudnn_ops_infer.h"
#include "cudnn_ops_train.h"

#endif /* CUDNN_H_ */
