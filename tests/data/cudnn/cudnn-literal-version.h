#ifndef CUDNN_H_
#  define CUDNN_MAJOR   (5)   /* spaced and parenthesised */
#  define CUDNN_MINOR   1
#  define CUDNN_PATCHLEVEL 10 // trailing comment
#define CUDNN_VERSION 5110
#endif
