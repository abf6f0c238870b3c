"""dpgossip.train with the user's torch.nn.Module: the model and its data
stay in Python, the simulation (protocol, noise with its provenance,
delivery, accounting) in libdpgossip (dpg_train_task). At each local step
the library hands a node's parameters and its batch's record indices to
_Task.gradient, which computes the per-example gradients with functorch
(vmap over the batch), clips each to the run's clip norm (the accountant's)
and returns their sum; the library adds the noise and gossips.

torch is imported only here, and only when a Module is passed."""

import math
import warnings

import numpy as np

from ._lib import Error, UsageError, ffi, lib, table_columns


def is_module(model):
    """Whether @model is a torch.nn.Module (without importing torch when
    the caller has not)."""
    import sys
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(model, torch.nn.Module)


def task_data(dataset, seed, test_fraction, model=None):
    """The records dpgossip.train trains and tests on for the dataset spec
    @dataset: (X_train, y_train, X_test, y_test, n_classes, init), init the
    built-in @model's initial parameters (flattened) from @seed."""
    test_p = ffi.new("DpgTable **")
    init_p = ffi.new("DpgTable **")
    keep = [ffi.new("char[]", str(dataset).encode()),
            ffi.new("char[]", str(model).encode()) if model else ffi.NULL,
            ffi.new("char[]", str(seed).encode()) if seed is not None else ffi.NULL]
    err = ffi.new("DpgError *")
    t = lib.dpg_task_data(keep[0], keep[1], float(test_fraction), keep[2], test_p, init_p, err)
    if t == ffi.NULL:
        msg = ffi.string(err.message).decode() if err.message != ffi.NULL else "failed"
        if err.message != ffi.NULL:
            lib.dpg_free(err.message)
        raise (UsageError if err.status == 2 else Error)(msg, err.status)
    (tr, attrs, Xtr), (te, _, Xte), (ini, _, _) = (table_columns(t), table_columns(test_p[0]),
                                                     table_columns(init_p[0]))
    n_classes = int(attrs["n_classes"])
    return Xtr, tr["target"], Xte, te["target"], n_classes, ini["param"]


def _tensors(torch, data, what):
    """(X, y) tensors from a pair of tensors/arrays or a map-style Dataset."""
    if isinstance(data, (tuple, list)) and len(data) == 2:
        X, y = data
        X = X if torch.is_tensor(X) else torch.as_tensor(np.asarray(X))
        y = y if torch.is_tensor(y) else torch.as_tensor(np.asarray(y))
    elif isinstance(data, torch.utils.data.Dataset):
        try:
            n = len(data)
        except TypeError:
            raise UsageError(f"{what}: a Dataset with a length (map-style) is needed", 2) from None
        if n == 0:
            raise UsageError(f"{what}: the dataset is empty", 2)
        xs, ys = zip(*(data[i] for i in range(n)))
        X = torch.stack([x if torch.is_tensor(x) else torch.as_tensor(x) for x in xs])
        y = torch.as_tensor(np.asarray([int(v) if not torch.is_tensor(v) else v.item()
                                        for v in ys]))
    else:
        raise UsageError(f"{what}: a torch Dataset, a (X, y) pair or a dataset spec string is "
                         f"needed, got {type(data).__name__}", 2)
    if X.shape[0] != y.shape[0]:
        raise UsageError(f"{what}: {X.shape[0]} inputs but {y.shape[0]} targets", 2)
    if X.shape[0] == 0:
        raise UsageError(f"{what}: the dataset is empty", 2)
    return X, y


def _is_classification(torch, criterion, y):
    return isinstance(criterion, (torch.nn.CrossEntropyLoss, torch.nn.NLLLoss)) or \
        not torch.is_floating_point(y)


class _Task:
    """The callbacks of a DpgTask and what they need; keeps the first
    Python exception a callback raised (the library only sees a status)."""

    def __init__(self, torch, model, criterion, Xtr, ytr, Xte, yte, classify, progress):
        from functorch import grad_and_value, make_functional, vmap
        self.torch = torch
        self.model = model
        self.criterion = criterion
        self.Xtr, self.ytr, self.Xte, self.yte = Xtr, ytr, Xte, yte
        self.classify = classify
        self.exception = None
        self.progress = progress
        params = list(model.parameters())
        self.dtype = params[0].dtype
        self.shapes = [p.shape for p in params]
        self.numels = [p.numel() for p in params]
        self.dim = sum(self.numels)
        fmodel, _ = make_functional(model)
        self.fmodel = fmodel

        def loss1(ps, x, y):
            return criterion(fmodel(ps, x.unsqueeze(0)), y.unsqueeze(0))

        self.per_example = vmap(grad_and_value(loss1), in_dims=(None, 0, 0))

    def params(self, p, d):
        """The C vector (d doubles) as the model's parameter tensors."""
        v = self.torch.from_numpy(np.frombuffer(ffi.buffer(p, 8 * d), dtype=np.float64))
        v = v.to(self.dtype)
        return tuple(t.view(s) for t, s in zip(v.split(self.numels), self.shapes))

    def gradient(self, node, step, p, batch, count, clip, g, d, _user):
        try:
            torch = self.torch
            idx = torch.from_numpy(np.frombuffer(ffi.buffer(batch, 8 * count),
                                                 dtype=np.uint64).astype(np.int64))
            grads, losses = self.per_example(self.params(p, d), self.Xtr[idx], self.ytr[idx])
            bad = ~torch.isfinite(losses)
            if bool(bad.any()):
                r = int(idx[bad.nonzero()[0, 0]])
                raise Error(f"the loss of node {node} at step {step} is "
                            f"{float(losses[bad][0])} (training record {r}): lower lr or "
                            "check the model and data", 1)
            flat = torch.cat([gr.reshape(count, -1) for gr in grads], dim=1)
            norms = flat.norm(dim=1)
            # Each example's gradient clipped to norm <= clip, as the
            # built-in models clip (learning/kernels.c): scaled by
            # clip / norm when the norm exceeds clip.
            scale = torch.where(norms > clip, clip / norms, torch.ones_like(norms))
            total = (flat * scale.unsqueeze(1)).sum(dim=0).to(torch.float64)
            out = np.frombuffer(ffi.buffer(g, 8 * d), dtype=np.float64)
            out[:] = total.numpy()
            return 0
        except BaseException as e:  # noqa: B902 (re-raised by train)
            if self.exception is None:
                self.exception = e
            return 1

    def evaluate(self, node, step, p, d, train_rows, n_train, test_rows, n_test, out, _user):
        try:
            torch = self.torch
            fmodel = self.fmodel
            ps = self.params(p, d)
            with torch.no_grad():
                idx = torch.from_numpy(np.frombuffer(ffi.buffer(train_rows, 8 * n_train),
                                                     dtype=np.uint64).astype(np.int64))
                out[0] = float(self.criterion(fmodel(ps, self.Xtr[idx]), self.ytr[idx]))
                if test_rows == ffi.NULL:
                    X, y = self.Xte, self.yte
                else:
                    t = torch.from_numpy(np.frombuffer(ffi.buffer(test_rows, 8 * n_test),
                                                       dtype=np.uint64).astype(np.int64))
                    X, y = self.Xte[t], self.yte[t]
                z = fmodel(ps, X)
                out[1] = float(self.criterion(z, y))
                out[2] = float((z.argmax(dim=1) == y).double().mean()) if self.classify else \
                    math.nan
        except BaseException as e:  # noqa: B902
            if self.exception is None:
                self.exception = e


def check_model(torch, model, criterion, Xtr, ytr, batch_min, n_nodes, batches):
    """The bad inputs refused before any work: parameters, device, buffers,
    the output against the loss, the dataset against the nodes' batches."""
    params = list(model.parameters())
    if not params:
        raise UsageError("model: the module has no parameters to train", 2)
    for name, p in model.named_parameters():
        if not torch.is_floating_point(p):
            raise UsageError(f"model: parameter {name} is {p.dtype}, not a floating-point "
                             "type: dpgossip trains float parameters only", 2)
        if p.device.type != "cpu":
            raise UsageError(f"model: parameter {name} is on device {p.device}; dpgossip's "
                             "run computes on the CPU: move the model there (model.cpu())", 2)
    dtypes = {p.dtype for p in params}
    if len(dtypes) > 1:
        raise UsageError(f"model: parameters of several types {sorted(map(str, dtypes))}: "
                         "convert the model to one (model.float() or model.double())", 2)
    if any(True for _ in model.buffers()):
        raise UsageError("model: the module has buffers (e.g. BatchNorm's running statistics), "
                         "which per-example gradients cannot keep apart: use GroupNorm or "
                         "LayerNorm instead, as Opacus asks", 2)
    if Xtr.shape[0] < n_nodes * batches:
        raise UsageError(f"dataset: {Xtr.shape[0]} training records are fewer than the "
                         f"{n_nodes} nodes x {batches} batches: every node's batch needs at "
                         "least one record (use fewer nodes or batches, or more data)", 2)
    x, y = Xtr[:2], ytr[:2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # MSELoss warns on a shape it broadcasts
        try:
            with torch.no_grad():
                z = model(x)
        except Exception as e:
            raise UsageError(f"model: it fails on the dataset's inputs of shape "
                             f"{tuple(x.shape[1:])}: {e}", 2) from None
        try:
            loss = criterion(z, y)
        except Exception as e:
            raise UsageError(f"criterion: the model's output of shape {tuple(z.shape)} does "
                             f"not fit {type(criterion).__name__} with targets of shape "
                             f"{tuple(y.shape)} ({y.dtype}): {e}", 2) from None
    if not torch.is_tensor(loss) or loss.numel() != 1:
        raise UsageError(f"criterion: {type(criterion).__name__} returns "
                         f"{tuple(getattr(loss, 'shape', ()))}, not one number: use a mean or "
                         "sum reduction", 2)


def partition_lists(lists, n_nodes):
    """(offsets, records) as uint64 arrays from the user's @lists, one
    sequence of record indices per node; the library checks the indices
    against the records and the batches (learn_partition_lists)."""
    try:
        lists = list(lists)
    except TypeError:
        raise UsageError("partition: a rule string or one list of record indices per node is "
                         f"needed, got {type(lists).__name__}", 2) from None
    if len(lists) != n_nodes:
        raise UsageError(f"partition: {len(lists)} index lists for a graph of {n_nodes} nodes: "
                         "give one per node, in node order", 2)
    parts = []
    for u, rows in enumerate(lists):
        a = np.asarray(rows.numpy() if hasattr(rows, "numpy") else rows)
        if a.ndim != 1 or (a.size > 0 and (a.dtype == np.bool_ or
                                           not np.issubdtype(a.dtype, np.integer))):
            raise UsageError(f"partition: node {u}'s list is not a 1-D sequence of integer "
                             f"record indices (got {a.dtype}, shape {a.shape})", 2)
        if a.size > 0 and int(a.min()) < 0:
            raise UsageError(f"partition: node {u}'s list holds a negative index "
                             f"({int(a.min())}); indices go from 0", 2)
        parts.append(a.astype(np.uint64))
    offsets = np.zeros(n_nodes + 1, dtype=np.uint64)
    offsets[1:] = np.cumsum([a.size for a in parts])
    records = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
    return offsets, np.ascontiguousarray(records, dtype=np.uint64)


def prepare(model, dataset, criterion, test_dataset, test_fraction, seed, n_nodes, batches,
            lists=False):
    """(task, DpgTask fields): checks every input, splits the data, builds
    the callbacks. @lists: the caller deals the records itself (index lists
    into the dataset as given, so no split may move them)."""
    import torch
    if lists and (isinstance(dataset, str) or test_dataset is None):
        raise UsageError("partition: index lists point into your dataset's records: pass the "
                         "data as a Dataset or (X, y) with test_dataset= (a held-out split "
                         "would take records out from under the lists)", 2)
    if criterion is None:
        raise UsageError("criterion: a torch loss (e.g. torch.nn.CrossEntropyLoss()) is needed "
                         "with a torch model", 2)
    if isinstance(dataset, str):
        if test_dataset is not None:
            raise UsageError("test_dataset: a dataset spec brings its own test split", 2)
        Xtr, ytr, Xte, yte, _, _ = task_data(dataset, seed, test_fraction)
        Xtr, ytr, Xte, yte = map(torch.from_numpy, (Xtr, ytr, Xte, yte))
    else:
        Xtr, ytr = _tensors(torch, dataset, "dataset")
        if test_dataset is not None:
            Xte, yte = _tensors(torch, test_dataset, "test_dataset")
        else:
            # The held-out records: a permutation drawn from the seed.
            n = Xtr.shape[0]
            n_test = int(round(n * float(test_fraction)))
            if n_test < 1 or n_test >= n:
                raise UsageError(f"test_fraction: {test_fraction} of {n} records leaves no "
                                 "test or no training record", 2)
            perm = torch.from_numpy(np.random.default_rng(int(seed or 0)).permutation(n))
            Xte, yte = Xtr[perm[:n_test]], ytr[perm[:n_test]]
            Xtr, ytr = Xtr[perm[n_test:]], ytr[perm[n_test:]]
    params = list(model.parameters())
    dtype = params[0].dtype if params and torch.is_floating_point(params[0]) else torch.float32
    classify = _is_classification(torch, criterion, ytr)
    Xtr, Xte = Xtr.to(dtype), Xte.to(dtype)
    if classify:
        ytr, yte = ytr.long(), yte.long()
    else:
        ytr, yte = ytr.to(dtype), yte.to(dtype)
    # With lists, a record may serve several nodes: the library checks each
    # node's own count against the batches.
    check_model(torch, model, criterion, Xtr, ytr, 1, 1 if lists else n_nodes,
                1 if lists else batches)
    task = _Task(torch, model, criterion, Xtr, ytr, Xte, yte, classify, None)
    n_classes = 0
    labels = None
    if classify:
        n_classes = max(int(ytr.max()), int(yte.max())) + 1
        if int(ytr.min()) < 0 or int(yte.min()) < 0:
            raise UsageError("dataset: class labels must be 0, 1, ...; found a negative one", 2)
        n_classes = max(n_classes, 2)
        labels = np.ascontiguousarray(ytr.numpy(), dtype=np.float64)
    init = torch.cat([p.detach().reshape(-1).to(torch.float64) for p in params]).numpy().copy()
    return task, n_classes, labels, init, Xte.shape[0]


def fill_task(s, t, task, n_classes, labels, init, n_test, lists=None):
    """The DpgTask @t from @task, its buffers kept alive by @s; @lists the
    (offsets, records) of partition_lists or None."""
    if lists is not None:
        offsets, records = s.keep(lists[0]), s.keep(lists[1])
        t.partition_offsets = s.keep(ffi.from_buffer("size_t[]", offsets))
        t.partition_records = s.keep(ffi.from_buffer("size_t[]", records)) if records.size \
            else ffi.NULL
    t.n_train = task.Xtr.shape[0]
    t.n_test = n_test
    t.n_classes = n_classes
    t.train_labels = s.keep(ffi.from_buffer("double[]", labels)) if labels is not None \
        else ffi.NULL
    t.dim = task.dim
    t.init = s.keep(ffi.from_buffer("double[]", init))
    s.keep(init)
    if labels is not None:
        s.keep(labels)
    t.gradient = s.keep(ffi.callback("DpgGradientFunc", task.gradient, error=1))
    t.evaluate = s.keep(ffi.callback("DpgEvalFunc", task.evaluate))
    t.user_data = ffi.NULL
