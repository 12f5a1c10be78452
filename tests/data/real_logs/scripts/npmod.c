#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <numpy/arrayobject.h>
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "npmod", NULL, -1, NULL};
PyMODINIT_FUNC PyInit_npmod(void) {
    import_array();
    return PyModule_Create(&def);
}
