"""Hand-written Numba gradients of the workloads in workloads.py: a peer column of run.py.

What someone who wanted speed and knew the derivative would write: explicit loops over
elements, compiled by ``numba.njit``. Imported only when numba is installed (the ``bench``
extra); each function returns what the matching ``*_grad_by_hand`` returns.
"""
import math

import numba
import numpy as np

import workloads

njit = numba.njit(cache=False, fastmath=False)


@njit
def scalar(x, y):
    e = math.exp(-x * y)
    return math.cos(x) * y + 2 * x / y - y * e, math.sin(x) - x ** 2 / y ** 2 - x * e


@njit
def small(w):
    out = np.empty_like(w)
    for i in range(w.size):
        t = math.tanh(2.0 * w[i] + 1.0)
        out[i] = 4.0 * t * (1.0 - t * t)
    return out


mlp = njit(workloads.mlp_grad_by_hand)  # matrix products only: the NumPy code compiles as it is


@njit
def elementwise(x):
    out = np.empty_like(x)
    for i in range(x.size):
        out[i] = math.cos(2.0 * x[i]) + 2.0 * x[i]
    return out


@njit
def rnn(W, h, x):
    n = h.size
    hs = np.empty((101, n))
    hs[0] = h
    for step in range(100):
        hs[step + 1] = np.tanh(W @ hs[step] + x)
    dW = np.zeros_like(W)
    dh = np.ones(n)
    dz = np.empty(n)
    for step in range(100, 0, -1):
        for i in range(n):
            dz[i] = dh[i] * (1.0 - hs[step, i] ** 2)
        for i in range(n):
            for j in range(n):
                dW[i, j] += dz[i] * hs[step - 1, j]
        dh = W.T @ dz
    return dW


@njit
def mysum(x):
    g = np.zeros_like(x)
    for i in range(x.size):
        g[i] += 1.0
    return g


@njit
def _lotka_volterra(prey, predator, alpha, beta, delta, gamma):
    return alpha * prey - beta * prey * predator, delta * prey * predator - gamma * predator


@njit
def _lotka_volterra_vjp(prey, predator, alpha, beta, delta, gamma, g0, g1, dparams):
    dparams[0] += prey * g0
    dparams[1] -= prey * predator * g0
    dparams[2] += prey * predator * g1
    dparams[3] -= predator * g1
    return ((alpha - beta * predator) * g0 + delta * predator * g1,
            -beta * prey * g0 + (delta * prey - gamma) * g1)


@njit
def rk4(params, y0):
    dt, steps = 0.01, 500
    a, b, d, c = params[0], params[1], params[2], params[3]
    points = np.empty((steps, 4, 2))  # each step's start and the three points its later stages read
    y0_, y1_ = y0[0], y0[1]
    for step in range(steps):
        k1a, k1b = _lotka_volterra(y0_, y1_, a, b, d, c)
        u2a, u2b = y0_ + 0.5 * dt * k1a, y1_ + 0.5 * dt * k1b
        k2a, k2b = _lotka_volterra(u2a, u2b, a, b, d, c)
        u3a, u3b = y0_ + 0.5 * dt * k2a, y1_ + 0.5 * dt * k2b
        k3a, k3b = _lotka_volterra(u3a, u3b, a, b, d, c)
        u4a, u4b = y0_ + dt * k3a, y1_ + dt * k3b
        k4a, k4b = _lotka_volterra(u4a, u4b, a, b, d, c)
        points[step, 0, 0], points[step, 0, 1] = y0_, y1_
        points[step, 1, 0], points[step, 1, 1] = u2a, u2b
        points[step, 2, 0], points[step, 2, 1] = u3a, u3b
        points[step, 3, 0], points[step, 3, 1] = u4a, u4b
        y0_ = y0_ + dt / 6.0 * (k1a + 2.0 * k2a + 2.0 * k3a + k4a)
        y1_ = y1_ + dt / 6.0 * (k1b + 2.0 * k2b + 2.0 * k3b + k4b)
    dparams = np.zeros(4)
    g0, g1 = 0.0, 0.0
    for step in range(steps - 1, -1, -1):
        g0 += 2.0 * y0_
        g1 += 2.0 * y1_
        dy0, dy1 = g0, g1
        p = points[step]
        e0, e1 = _lotka_volterra_vjp(p[3, 0], p[3, 1], a, b, d, c, dt / 6.0 * g0, dt / 6.0 * g1, dparams)
        dy0 += e0
        dy1 += e1
        k0, k1_ = dt / 3.0 * g0 + dt * e0, dt / 3.0 * g1 + dt * e1
        e0, e1 = _lotka_volterra_vjp(p[2, 0], p[2, 1], a, b, d, c, k0, k1_, dparams)
        dy0 += e0
        dy1 += e1
        k0, k1_ = dt / 3.0 * g0 + 0.5 * dt * e0, dt / 3.0 * g1 + 0.5 * dt * e1
        e0, e1 = _lotka_volterra_vjp(p[1, 0], p[1, 1], a, b, d, c, k0, k1_, dparams)
        dy0 += e0
        dy1 += e1
        k0, k1_ = dt / 6.0 * g0 + 0.5 * dt * e0, dt / 6.0 * g1 + 0.5 * dt * e1
        e0, e1 = _lotka_volterra_vjp(p[0, 0], p[0, 1], a, b, d, c, k0, k1_, dparams)
        g0, g1 = dy0 + e0, dy1 + e1
        y0_, y1_ = p[0, 0], p[0, 1]
    return dparams


@njit
def spring(x, v, k):
    n, steps = x.size, 50
    xs = np.empty((steps, n))
    x = x.copy()
    v = v.copy()
    for step in range(steps):
        for i in range(n):
            xs[step, i] = x[i]
            v[i] = v[i] + 0.01 * (-k * x[i] - 0.1 * v[i])
            x[i] = x[i] + 0.01 * v[i]
    dx = 2.0 * x
    dv = np.zeros(n)
    dk = 0.0
    for step in range(steps - 1, -1, -1):
        for i in range(n):
            dv_new = dv[i] + 0.01 * dx[i]
            da = 0.01 * dv_new
            dk -= da * xs[step, i]
            dx[i] = dx[i] - k * da
            dv[i] = dv_new - 0.1 * da
    return dx, dv, dk


