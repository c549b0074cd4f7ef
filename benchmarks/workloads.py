"""The benchmark workloads: each a function s2sad differentiates and its hand-written gradient.

Kept in a file of their own so s2sad can read their source; peers (autograd, JAX, PyTorch)
get the same computation written in their own array modules in run.py.
"""
import math

import numpy as np


# 1. scalar: pure overhead
def scalar(x, y):
    return math.sin(x) * y + x ** 2 / y + math.exp(-x * y)


def scalar_grad_by_hand(x, y):
    e = math.exp(-x * y)
    return (math.cos(x) * y + 2 * x / y - y * e, math.sin(x) - x ** 2 / y ** 2 - x * e)


# 2. small array
def small(w):
    return np.sum(np.tanh(2.0 * w + 1.0) ** 2)


def small_grad_by_hand(w):
    t = np.tanh(2.0 * w + 1.0)
    return 4.0 * t * (1.0 - t ** 2)


# 3. MLP loss
def mlp(W1, W2, X, y):
    h = np.tanh(X @ W1)
    out = h @ W2
    return np.mean((out - y) ** 2)


def mlp_grad_by_hand(W1, W2, X, y):
    h = np.tanh(X @ W1)
    out = h @ W2
    dout = 2.0 * (out - y) / out.size
    dW2 = h.T @ dout
    dh = dout @ W2.T
    dW1 = X.T @ (dh * (1.0 - h ** 2))
    return dW1, dW2


# 4. large elementwise (memory bandwidth)
def elementwise(x):
    return np.sum(np.sin(x) * np.cos(x) + x ** 2)


def elementwise_grad_by_hand(x):
    return np.cos(2.0 * x) + 2.0 * x


def elementwise_value_and_grad_by_hand(x):
    # what a pullback has to work with: the value needs sin and cos, and the gradient reuses them
    s, c = np.sin(x), np.cos(x)
    return np.sum(s * c + x ** 2), c * c - s * s + 2.0 * x


# 5. RNN loop
def rnn(W, h, x):
    for step in range(100):
        h = np.tanh(W @ h + x)
    return np.sum(h)


def rnn_grad_by_hand(W, h, x):
    hs = [h]
    for step in range(100):
        h = np.tanh(W @ h + x)
        hs.append(h)
    dW = np.zeros_like(W)
    dh = np.ones_like(h)
    for step in range(100, 0, -1):
        dz = dh * (1.0 - hs[step] ** 2)
        dW += np.outer(dz, hs[step - 1])
        dh = W.T @ dz
    return dW


# 6. index loop (seed 002)
def mysum(x):
    total = 0.0
    for i in range(len(x)):
        total = total + x[i]
    return total


def mysum_grad_by_hand(x):
    g = np.zeros_like(x)
    for i in range(len(x)):
        g[i] += 1.0
    return g


# 7. transform cost: a 50-line function
def fifty_lines(W1, b1, W2, b2, X, y, scale):
    z1 = X @ W1 + b1
    a1 = np.tanh(z1)
    z2 = a1 @ W2 + b2
    m = np.max(z2, axis=1, keepdims=True)
    e = np.exp(z2 - m)
    p = e / np.sum(e, axis=1, keepdims=True)
    log_p = np.log(p + 1e-12)
    nll = -np.mean(np.sum(y * log_p, axis=1))
    l2 = np.sum(W1 ** 2) + np.sum(W2 ** 2)
    reg = scale * l2
    total = nll + reg
    centred = X - np.mean(X, axis=0)
    spread = np.mean(centred ** 2)
    total = total + 0.01 * spread * np.sum(b1 ** 2)
    for i in range(3):
        total = total + 0.001 * np.sum(np.sin(W2 * (i + 1)))
    if total > 0:
        total = total * 1.0
    else:
        total = -total
    parts = [np.sum(a1), np.sum(z2)]
    parts.append(np.sum(p * log_p))
    s = 0.0
    for v in parts:
        s = s + v * 1e-6
    total = total + s
    q = np.sqrt(np.sum(b2 ** 2) + 1.0)
    total = total + 0.0001 * q
    r = np.dot(np.ravel(W1)[:5], np.ravel(W1)[:5])
    total = total + 1e-5 * r
    u = np.clip(z1, -3.0, 3.0)
    total = total + 1e-6 * np.sum(u)
    v2 = np.where(z1 > 0, z1, 0.1 * z1)
    total = total + 1e-6 * np.sum(v2)
    w = np.cumsum(b1)
    total = total + 1e-6 * np.sum(w)
    k = np.linalg.norm(W2)
    total = total + 1e-6 * k
    t = np.transpose(W1).reshape(-1)
    total = total + 1e-7 * np.sum(t[:3])
    mean_a = np.mean(a1, axis=0)
    var_a = np.var(a1, axis=0)
    total = total + 1e-6 * np.sum(mean_a + var_a)
    final = total * 1.0
    return final
