/* kdsl's compiled replay (kdsl.torch, replay=True; docs/pytorch.md,
 * "Replayed calls").
 *
 * A replay is what one input signature of an operator does on the GPU:
 * allocate its outputs, launch its recorded kernels.  kdsl.torch keeps it
 * as a generated Python function; this module runs the same thing without
 * the interpreter: `call(replays, args)` tests each replay's signature
 * against the call's positional arguments (the same test as kdsl.torch's
 * _inspect) and, on the first that matches, allocates the outputs (the
 * PyTorch functions it was given), writes each launch's parameters (the
 * recorded constants, the tensors' addresses) into a buffer on the stack
 * and calls cuLaunchKernel on PyTorch's current stream.  A signature with a
 * tensor that requires grad, while grad mode is on, is returned instead:
 * the caller makes the autograd node, whose forward calls the replay
 * (`replay(inputs)`, which launches without testing).  `call` returns None
 * when none matches: the caller takes its Python path, which says what is
 * wrong, if anything is.
 *
 * Built at run time with the host's C compiler (runtime/native.py), as
 * Triton builds its launchers; without a compiler kdsl replays in Python.
 * It needs Python's headers only: the driver's entry point, the stream
 * query and the allocators come from Python (`configure`).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

typedef int (*launch_kernel_t)(void *function, unsigned gx, unsigned gy,
                               unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shared_mem, void *stream,
                               void **params, void **extra);

#define MAX_ARGS 32         /* a call's positional arguments */
#define MAX_OUTPUTS 16      /* a replay's outputs */
#define MAX_PARAMS 128      /* one launch's parameters */
#define MAX_PARAM_BYTES 4096 /* their buffer (CUDA's classic limit) */

/* what `configure` was given */
static launch_kernel_t launch_kernel;
static PyObject *guards;        /* tuple of f(): any true, no replay */
static PyObject *grad_enabled;  /* f(): torch.is_grad_enabled */
static PyObject *tensor_guards; /* tuple of f(t): any true, no replay */
static PyObject *intercept;     /* its `hook` set: no replay */
static PyObject *tensor_type, *parameter_type;
static PyObject *current_stream; /* f(device) -> the CUstream, an int */
static PyObject *empty_like;
static PyObject *on_error; /* f(status, first, device): raises, or True:
                              launch again */
static PyObject *s_dtype, *s_shape, *s_stride, *s_is_cuda, *s_requires_grad,
    *s_data_ptr, *s_hook;

enum { IN_TENSOR, IN_FLOAT, IN_VALUE };
enum { FROM_INPUT, FROM_OUTPUT };

typedef struct {
  int kind;
  PyObject *dtype, *shape, *stride; /* IN_TENSOR */
  int cuda, needs; /* is_cuda, requires_grad */
  uint64_t bits;    /* IN_FLOAT: the double's bits (-0.0 is not 0.0) */
  PyObject *type;   /* IN_VALUE: its exact type ... */
  PyObject *value;  /* ... and value (int, bool, None, str) */
} Input;

typedef struct {
  int like; /* >= 0: make(input like, **kwargs), make None: empty_like */
  PyObject *make, *args, *kwargs; /* < 0: make(*args, **kwargs) */
} Output;

typedef struct {
  int from, index; /* the tensor whose address it is */
  size_t offset;   /* where it goes in the buffer */
  uint64_t align;  /* what the address must be a multiple of */
} Pointer;

typedef struct {
  void *function; /* the CUfunction */
  unsigned grid[3], block[3], shared_mem;
  size_t size;          /* the parameter buffer's bytes */
  char *consts;         /* the buffer, the constants written in */
  int nparams;
  size_t offsets[MAX_PARAMS]; /* each parameter's place in it */
  int npointers;
  Pointer *pointers;
} Launch;

typedef struct {
  PyObject_HEAD
  int ninputs, noutputs, nlaunches, tupled, device, grad;
  Input *inputs;
  Output *outputs;
  Launch *launches;
  PyObject *tag;  /* the caller's (kdsl.torch: the signature) */
  PyObject *keep; /* the spec it was made from (owns the objects above) */
} Replay;

static void Replay_dealloc(Replay *self) {
  if (self->launches) {
    for (int k = 0; k < self->nlaunches; k++) {
      PyMem_Free(self->launches[k].consts);
      PyMem_Free(self->launches[k].pointers);
    }
  }
  PyMem_Free(self->inputs);
  PyMem_Free(self->outputs);
  PyMem_Free(self->launches);
  Py_XDECREF(self->keep);
  Py_XDECREF(self->tag);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static int unsigned_triple(PyObject *seq, unsigned out[3]) {
  if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) != 3) {
    PyErr_SetString(PyExc_ValueError, "a grid or block is 3 ints");
    return -1;
  }
  for (int i = 0; i < 3; i++) {
    unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(seq, i));
    if (PyErr_Occurred()) return -1;
    out[i] = (unsigned)v;
  }
  return 0;
}

/* Replay(inputs, outputs, launches, tupled, device, tag):
 *   inputs: ("tensor", dtype, shape, strides, is_cuda, requires_grad) |
 *           ("float", bits) | ("value", type, value), one a positional
 *           argument;
 *   outputs: (like, make, args, kwargs): like an input's index, the output
 *            make(input, **kwargs) (make None: empty_like(input)), or -1:
 *            make(*args, **kwargs);
 *   launches: (function, grid, block, shared_mem, consts, offsets,
 *              pointers), consts the parameter buffer (bytes) with the
 *              constants in it, offsets each parameter's place, pointers
 *              ((from, index, offset, align), ...);
 *   tupled: whether the outputs are returned as a tuple;
 *   tag: kept as the replay's `tag`. */
static int Replay_init(Replay *self, PyObject *args, PyObject *kwds) {
  PyObject *inputs, *outputs, *launches, *tag;
  int tupled, device;
  if (!PyArg_ParseTuple(args, "O!O!O!piO", &PyTuple_Type, &inputs,
                        &PyTuple_Type, &outputs, &PyTuple_Type, &launches,
                        &tupled, &device, &tag))
    return -1;
  if (self->keep) {
    PyErr_SetString(PyExc_TypeError, "a Replay is made once");
    return -1;
  }
  self->keep = Py_NewRef(args);
  self->tag = Py_NewRef(tag);
  self->tupled = tupled;
  self->device = device;
  self->ninputs = (int)PyTuple_GET_SIZE(inputs);
  self->noutputs = (int)PyTuple_GET_SIZE(outputs);
  self->nlaunches = (int)PyTuple_GET_SIZE(launches);
  if (self->ninputs > MAX_ARGS || self->noutputs > MAX_OUTPUTS ||
      self->noutputs < 1) {
    PyErr_SetString(PyExc_ValueError, "too many inputs or outputs");
    return -1;
  }
  self->inputs = PyMem_Calloc(self->ninputs + 1, sizeof(Input));
  self->outputs = PyMem_Calloc(self->noutputs, sizeof(Output));
  self->launches = PyMem_Calloc(self->nlaunches + 1, sizeof(Launch));
  if (!self->inputs || !self->outputs || !self->launches) {
    PyErr_NoMemory();
    return -1;
  }
  for (int i = 0; i < self->ninputs; i++) {
    Input *in = &self->inputs[i];
    PyObject *spec = PyTuple_GET_ITEM(inputs, i);
    const char *kind;
    PyObject *a, *b = NULL, *c = NULL, *d = NULL, *e = NULL;
    if (!PyArg_ParseTuple(spec, "sO|OOOO", &kind, &a, &b, &c, &d, &e))
      return -1;
    if (strcmp(kind, "tensor") == 0 && e != NULL) {
      in->kind = IN_TENSOR;
      in->dtype = a, in->shape = b, in->stride = c;
      in->cuda = PyObject_IsTrue(d);
      in->needs = PyObject_IsTrue(e);
      self->grad |= in->needs;
    } else if (strcmp(kind, "float") == 0) {
      in->kind = IN_FLOAT;
      in->bits = PyLong_AsUnsignedLongLong(a);
      if (PyErr_Occurred()) return -1;
    } else if (strcmp(kind, "value") == 0 && b != NULL) {
      in->kind = IN_VALUE;
      in->type = a, in->value = b;
    } else {
      PyErr_Format(PyExc_ValueError, "input %d: unknown spec", i);
      return -1;
    }
  }
  for (int j = 0; j < self->noutputs; j++) {
    Output *out = &self->outputs[j];
    PyObject *spec = PyTuple_GET_ITEM(outputs, j);
    if (!PyArg_ParseTuple(spec, "iOOO", &out->like, &out->make, &out->args,
                          &out->kwargs))
      return -1;
    if (out->like >= self->ninputs || !PyTuple_Check(out->args) ||
        !PyDict_Check(out->kwargs) ||
        (out->make == Py_None ? out->like < 0 : !PyCallable_Check(out->make))) {
      PyErr_Format(PyExc_ValueError, "output %d: unknown spec", j);
      return -1;
    }
  }
  for (int k = 0; k < self->nlaunches; k++) {
    Launch *l = &self->launches[k];
    PyObject *spec = PyTuple_GET_ITEM(launches, k);
    unsigned long long function;
    PyObject *grid, *block, *offsets, *pointers;
    Py_buffer consts;
    if (!PyArg_ParseTuple(spec, "KOOIy*O!O!", &function, &grid, &block,
                          &l->shared_mem, &consts, &PyTuple_Type, &offsets,
                          &PyTuple_Type, &pointers))
      return -1;
    l->function = (void *)(uintptr_t)function;
    l->size = (size_t)consts.len;
    l->consts = PyMem_Malloc(l->size + 1);
    if (l->consts) memcpy(l->consts, consts.buf, l->size);
    PyBuffer_Release(&consts);
    if (!l->consts) {
      PyErr_NoMemory();
      return -1;
    }
    if (unsigned_triple(grid, l->grid) || unsigned_triple(block, l->block))
      return -1;
    l->nparams = (int)PyTuple_GET_SIZE(offsets);
    if (l->nparams > MAX_PARAMS || l->size > MAX_PARAM_BYTES) {
      PyErr_SetString(PyExc_ValueError, "too many launch parameters");
      return -1;
    }
    for (int m = 0; m < l->nparams; m++) {
      l->offsets[m] = PyLong_AsSize_t(PyTuple_GET_ITEM(offsets, m));
      if (PyErr_Occurred()) return -1;
      if (l->offsets[m] + 1 > l->size) {
        PyErr_SetString(PyExc_ValueError, "a parameter outside its buffer");
        return -1;
      }
    }
    l->npointers = (int)PyTuple_GET_SIZE(pointers);
    l->pointers = PyMem_Calloc(l->npointers + 1, sizeof(Pointer));
    if (!l->pointers) {
      PyErr_NoMemory();
      return -1;
    }
    for (int m = 0; m < l->npointers; m++) {
      Pointer *p = &l->pointers[m];
      unsigned long long align;
      if (!PyArg_ParseTuple(PyTuple_GET_ITEM(pointers, m), "iinK", &p->from,
                            &p->index, &p->offset, &align))
        return -1;
      p->align = align ? align : 1;
      int n = p->from == FROM_INPUT ? self->ninputs : self->noutputs;
      if (p->from < FROM_INPUT || p->from > FROM_OUTPUT || p->index < 0 ||
          p->index >= n || p->offset + sizeof(uint64_t) > l->size ||
          (p->from == FROM_INPUT &&
           self->inputs[p->index].kind != IN_TENSOR)) {
        PyErr_SetString(PyExc_ValueError, "a pointer of no tensor");
        return -1;
      }
    }
  }
  return 0;
}


/* 1: true, 0: false, -1: an error set */
static int attr_is(PyObject *obj, PyObject *name, PyObject *want) {
  PyObject *v = PyObject_GetAttr(obj, name);
  if (!v) return -1;
  int same = v == want;
  Py_DECREF(v);
  return same;
}

static int attr_equals(PyObject *obj, PyObject *name, PyObject *want,
                       int method) {
  PyObject *v = method ? PyObject_CallMethodNoArgs(obj, name)
                       : PyObject_GetAttr(obj, name);
  if (!v) return -1;
  int same = PyObject_RichCompareBool(v, want, Py_EQ);
  Py_DECREF(v);
  return same;
}

static int any_true(PyObject *fns, PyObject *arg) {
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(fns); i++) {
    PyObject *fn = PyTuple_GET_ITEM(fns, i);
    PyObject *v = arg ? PyObject_CallOneArg(fn, arg) : PyObject_CallNoArgs(fn);
    if (!v) return -1;
    int t = PyObject_IsTrue(v);
    Py_DECREF(v);
    if (t) return t;
  }
  return 0;
}

/* The tensor's address into *ptr: 1 when `a` is a plain tensor that
 * requires grad as `needs` says and no guard holds for it, 0 when not, -1
 * on an error. */
static int plain_tensor(PyObject *a, int needs, uint64_t *ptr) {
  if (Py_TYPE(a) != (PyTypeObject *)tensor_type &&
      Py_TYPE(a) != (PyTypeObject *)parameter_type)
    return 0;
  int r = attr_is(a, s_requires_grad, needs ? Py_True : Py_False);
  if (r != 1) return r;
  if ((r = any_true(tensor_guards, a)) != 0) return r < 0 ? -1 : 0;
  PyObject *v = PyObject_CallMethodNoArgs(a, s_data_ptr);
  if (!v) return -1;
  *ptr = PyLong_AsUnsignedLongLong(v);
  Py_DECREF(v);
  return PyErr_Occurred() ? -1 : 1;
}

static int aligned(Replay *r, const uint64_t *ptrs);

/* 1 when the arguments have the replay's signature (their addresses in
 * ptrs), 0 when not, -1 on an error. */
static int matches(Replay *r, PyObject *args, uint64_t *ptrs) {
  if (PyTuple_GET_SIZE(args) != r->ninputs) return 0;
  for (int i = 0; i < r->ninputs; i++) {
    Input *in = &r->inputs[i];
    PyObject *a = PyTuple_GET_ITEM(args, i);
    int ok;
    switch (in->kind) {
      case IN_TENSOR:
        if ((ok = plain_tensor(a, in->needs, &ptrs[i])) != 1) return ok;
        if ((ok = attr_is(a, s_dtype, in->dtype)) != 1) return ok;
        if ((ok = attr_is(a, s_is_cuda, in->cuda ? Py_True : Py_False)) != 1)
          return ok;
        if ((ok = attr_equals(a, s_shape, in->shape, 0)) != 1) return ok;
        if ((ok = attr_equals(a, s_stride, in->stride, 1)) != 1) return ok;
        for (int k = 0; k < i; k++) /* two arguments at one address */
          if (r->inputs[k].kind == IN_TENSOR && ptrs[k] == ptrs[i]) return 0;
        break;
      case IN_FLOAT: {
        if (!PyFloat_CheckExact(a)) return 0;
        double d = PyFloat_AS_DOUBLE(a);
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        if (bits != in->bits) return 0;
        break;
      }
      default:
        if ((PyObject *)Py_TYPE(a) != in->type) return 0;
        if ((ok = PyObject_RichCompareBool(a, in->value, Py_EQ)) != 1)
          return ok;
    }
  }
  return aligned(r, ptrs);
}

/* 1 when the inputs' addresses are aligned as the launches need */
static int aligned(Replay *r, const uint64_t *ptrs) {
  for (int k = 0; k < r->nlaunches; k++) {
    Launch *l = &r->launches[k];
    for (int m = 0; m < l->npointers; m++) {
      Pointer *p = &l->pointers[m];
      if (p->from == FROM_INPUT && ptrs[p->index] % p->align) return 0;
    }
  }
  return 1;
}

static PyObject *allocate(Output *out, PyObject *args) {
  if (out->like < 0) return PyObject_Call(out->make, out->args, out->kwargs);
  PyObject *like = PyTuple_GET_ITEM(args, out->like);
  if (out->make == Py_None) return PyObject_CallOneArg(empty_like, like);
  PyObject *one = PyTuple_Pack(1, like);
  if (!one) return NULL;
  PyObject *made = PyObject_Call(out->make, one, out->kwargs);
  Py_DECREF(one);
  return made;
}

static PyObject *run(Replay *r, PyObject *args, uint64_t *ptrs) {
  PyObject *outs[MAX_OUTPUTS] = {0};
  uint64_t out_ptrs[MAX_OUTPUTS];
  PyObject *result = NULL;
  int j;
  for (j = 0; j < r->noutputs; j++) {
    if (!(outs[j] = allocate(&r->outputs[j], args))) goto done;
    PyObject *v = PyObject_CallMethodNoArgs(outs[j], s_data_ptr);
    if (!v) goto done;
    out_ptrs[j] = PyLong_AsUnsignedLongLong(v);
    Py_DECREF(v);
    if (PyErr_Occurred()) goto done;
  }
  PyObject *device = PyLong_FromLong(r->device);
  if (!device) goto done;
  PyObject *s = PyObject_CallOneArg(current_stream, device);
  Py_DECREF(device);
  if (!s) goto done;
  void *stream = PyLong_AsVoidPtr(s);
  Py_DECREF(s);
  if (PyErr_Occurred()) goto done;
  for (int k = 0; k < r->nlaunches; k++) {
    Launch *l = &r->launches[k];
    _Alignas(16) char buffer[MAX_PARAM_BYTES];
    void *params[MAX_PARAMS];
    memcpy(buffer, l->consts, l->size);
    for (int m = 0; m < l->npointers; m++) {
      Pointer *p = &l->pointers[m];
      uint64_t v = p->from == FROM_INPUT ? ptrs[p->index] : out_ptrs[p->index];
      memcpy(buffer + p->offset, &v, sizeof v);
    }
    for (int m = 0; m < l->nparams; m++) params[m] = buffer + l->offsets[m];
    for (int attempt = 0;; attempt++) {
      int status = launch_kernel(l->function, l->grid[0], l->grid[1],
                                 l->grid[2], l->block[0], l->block[1],
                                 l->block[2], l->shared_mem, stream,
                                 l->nparams ? params : NULL, NULL);
      if (status == 0) break;
      /* raises; or, no context on this thread yet, makes it: once more */
      PyObject *again = PyObject_CallFunction(
          on_error, "iii", status, k == 0 && attempt == 0, r->device);
      if (!again) goto done;
      int retry = PyObject_IsTrue(again);
      Py_DECREF(again);
      if (retry != 1) {
        if (retry == 0)
          PyErr_Format(PyExc_RuntimeError, "cuLaunchKernel failed: %d", status);
        goto done;
      }
    }
  }
  if (r->tupled) {
    result = PyTuple_New(r->noutputs);
    if (!result) goto done;
    for (j = 0; j < r->noutputs; j++) {
      PyTuple_SET_ITEM(result, j, outs[j]);
      outs[j] = NULL;
    }
  } else {
    result = outs[0];
    outs[0] = NULL;
  }
done:
  for (j = 0; j < r->noutputs; j++) Py_XDECREF(outs[j]);
  return result;
}

/* replay(inputs): the outputs, the launches made, for inputs the caller
 * has found of the replay's signature (kdsl.torch's generated replay
 * function calls it first); None when an address is not aligned as a
 * launch needs (the function's Python launch then says so). */
static PyObject *Replay_call(Replay *r, PyObject *args, PyObject *kwds) {
  PyObject *inputs;
  if (!PyArg_ParseTuple(args, "O!", &PyTuple_Type, &inputs)) return NULL;
  if (PyTuple_GET_SIZE(inputs) != r->ninputs) {
    PyErr_SetString(PyExc_TypeError, "not the replay's inputs");
    return NULL;
  }
  uint64_t ptrs[MAX_ARGS];
  for (int i = 0; i < r->ninputs; i++) {
    if (r->inputs[i].kind != IN_TENSOR) continue;
    PyObject *v =
        PyObject_CallMethodNoArgs(PyTuple_GET_ITEM(inputs, i), s_data_ptr);
    if (!v) return NULL;
    ptrs[i] = PyLong_AsUnsignedLongLong(v);
    Py_DECREF(v);
    if (PyErr_Occurred()) return NULL;
  }
  if (!aligned(r, ptrs)) Py_RETURN_NONE;
  return run(r, inputs, ptrs);
}

static PyMemberDef Replay_members[] = {
    {"tag", T_OBJECT, offsetof(Replay, tag), READONLY, "the caller's tag"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject ReplayType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kdsl_native.Replay",
    .tp_basicsize = sizeof(Replay),
    .tp_dealloc = (destructor)Replay_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One input signature's outputs and launches.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Replay_init,
    .tp_call = (ternaryfunc)Replay_call,
    .tp_members = Replay_members,
};

/* call(replays, args): the outputs of the first replay in the list whose
 * signature the positional arguments `args` have, after launching its
 * kernels, or the replay itself when it needs autograd (above); None when
 * there is none or something would see the call (a mode, a transform, a
 * launch hook). */
static PyObject *call(PyObject *module, PyObject *const *argv,
                      Py_ssize_t argc) {
  if (argc != 2 || !PyList_Check(argv[0]) || !PyTuple_Check(argv[1])) {
    PyErr_SetString(PyExc_TypeError, "call(replays: list, args: tuple)");
    return NULL;
  }
  if (!launch_kernel) Py_RETURN_NONE; /* not configured */
  PyObject *replays = argv[0], *args = argv[1];
  if (PyTuple_GET_SIZE(args) > MAX_ARGS) Py_RETURN_NONE;
  int r = attr_is(intercept, s_hook, Py_None);
  if (r != 1) return r < 0 ? NULL : Py_NewRef(Py_None);
  if ((r = any_true(guards, NULL)) != 0) return r < 0 ? NULL : Py_NewRef(Py_None);
  uint64_t ptrs[MAX_ARGS];
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(replays); i++) {
    PyObject *item = PyList_GET_ITEM(replays, i);
    if (Py_TYPE(item) != &ReplayType) continue;
    int m = matches((Replay *)item, args, ptrs);
    if (m < 0) return NULL;
    if (m) {
      if (((Replay *)item)->grad) { /* autograd's, while grad mode is on */
        PyObject *on = PyObject_CallNoArgs(grad_enabled);
        if (!on) return NULL;
        int t = PyObject_IsTrue(on);
        Py_DECREF(on);
        if (t) return t < 0 ? NULL : Py_NewRef(item);
      }
      Py_INCREF(item); /* (the list may change under an allocation) */
      PyObject *out = run((Replay *)item, args, ptrs);
      Py_DECREF(item);
      return out;
    }
  }
  Py_RETURN_NONE;
}

static void set(PyObject **slot, PyObject *value) {
  PyObject *old = *slot;
  *slot = Py_NewRef(value);
  Py_XDECREF(old);
}

/* configure(launch_kernel, guards, tensor_guards, intercept, tensor_types,
 *           current_stream, empty_like, on_error, grad_enabled) */
static PyObject *configure(PyObject *module, PyObject *args) {
  unsigned long long fn;
  PyObject *g, *tg, *icpt, *types, *stream, *like, *err, *grad;
  if (!PyArg_ParseTuple(args, "KO!O!OO!OOOO", &fn, &PyTuple_Type, &g,
                        &PyTuple_Type, &tg, &icpt, &PyTuple_Type, &types,
                        &stream, &like, &err, &grad))
    return NULL;
  if (PyTuple_GET_SIZE(types) != 2 || !PyType_Check(PyTuple_GET_ITEM(types, 0)) ||
      !PyType_Check(PyTuple_GET_ITEM(types, 1))) {
    PyErr_SetString(PyExc_TypeError, "tensor_types: (torch.Tensor, Parameter)");
    return NULL;
  }
  set(&guards, g);
  set(&tensor_guards, tg);
  set(&intercept, icpt);
  set(&tensor_type, PyTuple_GET_ITEM(types, 0));
  set(&parameter_type, PyTuple_GET_ITEM(types, 1));
  set(&current_stream, stream);
  set(&empty_like, like);
  set(&on_error, err);
  set(&grad_enabled, grad);
  launch_kernel = (launch_kernel_t)(uintptr_t)fn;
  Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"call", (PyCFunction)(void (*)(void))call, METH_FASTCALL,
     "call(replays, args): a matching replay's outputs, or None"},
    {"configure", configure, METH_VARARGS, "configure(...): see native.py"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "kdsl_native", "kdsl's compiled replay", -1,
    methods,
};

PyMODINIT_FUNC PyInit_kdsl_native(void) {
  if (PyType_Ready(&ReplayType) < 0) return NULL;
#define INTERN(var, text) \
  if (!(var = PyUnicode_InternFromString(text))) return NULL
  INTERN(s_dtype, "dtype");
  INTERN(s_shape, "shape");
  INTERN(s_stride, "stride");
  INTERN(s_is_cuda, "is_cuda");
  INTERN(s_requires_grad, "requires_grad");
  INTERN(s_data_ptr, "data_ptr");
  INTERN(s_hook, "hook");
#undef INTERN
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  if (PyModule_AddObjectRef(m, "Replay", (PyObject *)&ReplayType) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
