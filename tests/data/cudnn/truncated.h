/* cut short */
#define CUDNN_MAJOR 7
#define CUDNN_MINOR 6
#define CUDNN_PATCHL