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


# 8. RK4 Lotka-Volterra: a small ODE integrated for 500 steps, the gradient of a trajectory
# loss with respect to the model's 4 parameters, written as a scientist would write it
def lotka_volterra(y, params):
    alpha, beta, delta, gamma = params[0], params[1], params[2], params[3]
    prey, predator = y[0], y[1]
    return np.array([alpha * prey - beta * prey * predator, delta * prey * predator - gamma * predator])


def rk4_step(f, y, dt, params):
    k1 = f(y, params)
    k2 = f(y + 0.5 * dt * k1, params)
    k3 = f(y + 0.5 * dt * k2, params)
    k4 = f(y + dt * k3, params)
    return y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def rk4(params, y0):
    y = y0
    total = 0.0
    for step in range(500):
        y = rk4_step(lotka_volterra, y, 0.01, params)
        total = total + np.sum(y ** 2)
    return total


def _lotka_volterra_vjp(y, params, g):
    """The cotangents of y and of params from the cotangent g of lotka_volterra(y, params)."""
    alpha, beta, delta, gamma = params
    prey, predator = y
    dy = np.array([(alpha - beta * predator) * g[0] + delta * predator * g[1],
                   -beta * prey * g[0] + (delta * prey - gamma) * g[1]])
    dparams = np.array([prey * g[0], -prey * predator * g[0], prey * predator * g[1], -predator * g[1]])
    return dy, dparams


def rk4_grad_by_hand(params, y0, dt=0.01, steps=500):
    # forward: keep each step's start and the points its four stages were evaluated at
    y = y0
    stages = []
    for step in range(steps):
        k1 = lotka_volterra(y, params)
        u2 = y + 0.5 * dt * k1
        k2 = lotka_volterra(u2, params)
        u3 = y + 0.5 * dt * k2
        k3 = lotka_volterra(u3, params)
        u4 = y + dt * k3
        k4 = lotka_volterra(u4, params)
        stages.append((y, u2, u3, u4))
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    # reverse: y_next = y + dt/6 (k1 + 2 k2 + 2 k3 + k4), and the loss adds sum(y_next ** 2)
    dparams = np.zeros_like(params)
    dy_next = np.zeros_like(y0)
    for step in range(steps - 1, -1, -1):
        y_start, u2, u3, u4 = stages[step]
        dy_next = dy_next + 2.0 * y
        dy = dy_next.copy()
        dk4 = dt / 6.0 * dy_next
        dk3 = dt / 3.0 * dy_next
        dk2 = dt / 3.0 * dy_next
        dk1 = dt / 6.0 * dy_next
        du4, dp = _lotka_volterra_vjp(u4, params, dk4)
        dparams += dp
        dy += du4
        dk3 = dk3 + dt * du4
        du3, dp = _lotka_volterra_vjp(u3, params, dk3)
        dparams += dp
        dy += du3
        dk2 = dk2 + 0.5 * dt * du3
        du2, dp = _lotka_volterra_vjp(u2, params, dk2)
        dparams += dp
        dy += du2
        dk1 = dk1 + 0.5 * dt * du2
        dy1, dp = _lotka_volterra_vjp(y_start, params, dk1)
        dparams += dp
        dy += dy1
        dy_next = dy
        y = y_start
    return dparams



# 9. damped spring: 50 explicit Euler steps on a 4-element state; the gradient with respect
# to the initial position, the initial velocity and the stiffness
def spring(x, v, k):
    for step in range(50):
        a = -k * x - 0.1 * v
        v = v + 0.01 * a
        x = x + 0.01 * v
    return np.sum(x ** 2)


def spring_grad_by_hand(x, v, k, steps=50):
    xs = [x]
    for step in range(steps):
        a = -k * x - 0.1 * v
        v = v + 0.01 * a
        x = x + 0.01 * v
        xs.append(x)
    dx = 2.0 * x
    dv = np.zeros_like(v)
    dk = 0.0
    for step in range(steps, 0, -1):
        # x' = x + 0.01 v', v' = v + 0.01 a, a = -k x - 0.1 v  (x the state before the step)
        dv_new = dv + 0.01 * dx
        da = 0.01 * dv_new
        dk -= np.dot(da, xs[step - 1])
        dx = dx - k * da
        dv = dv_new - 0.1 * da
    return dx, dv, dk
