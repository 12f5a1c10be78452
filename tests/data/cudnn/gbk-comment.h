/* 版本号：从 NVIDIA 安装包复制 */
#define CUDNN_MAJOR 7
#define CUDNN_MINOR 6
#define CUDNN_PATCHLEVEL 5
