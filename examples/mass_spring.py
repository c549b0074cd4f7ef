"""A mass-spring chain simulated with explicit Euler steps, differentiated through the whole loop.

Shows: s2sad on loop-heavy code that updates array state in place (``x[i] = ...``
inside a ``for`` loop inside another ``for`` loop, a branch in the body). The reverse
pass replays the steps backwards from a tape and undoes each in-place change. The
gradient of a loss on the final state with respect to the spring constants is checked
against central finite differences, then used to fit the spring constants to a
trajectory's end point by a few steps of gradient descent.

The chain: a wall, then spring 0, mass 0, spring 1, mass 1, ..., mass n-1; spring i
pulls on masses i-1 and i with force k[i] * (extension), and each mass has a little
damping.

Run: python examples/mass_spring.py [--steps N]

Exits with status 1 if the gradient disagrees with finite differences or the fit does
not reduce the loss.
"""
import argparse
import sys
import time

import numpy as np

import s2sad
from s2sad.testing import numerical_gradient

REST_LENGTH = 1.0


def simulate(k, x0, v0, mass, damping, dt, steps):
    """Positions and velocities after ``steps`` explicit Euler steps of size ``dt``."""
    x = x0.copy()          # the arguments are never changed in place: work on copies
    v = v0.copy()
    n = len(x0)
    for step in range(steps):
        force = np.zeros(n)
        for i in range(n):
            left = x[i - 1] if i > 0 else 0.0
            tension = k[i] * (x[i] - left - REST_LENGTH)
            force[i] = force[i] - tension              # spring i pulls mass i back ...
            if i > 0:
                force[i - 1] = force[i - 1] + tension  # ... and mass i-1 forward
        for i in range(n):
            a = (force[i] - damping * v[i]) / mass[i]
            x[i] = x[i] + dt * v[i]                    # explicit Euler: both from the old state
            v[i] = v[i] + dt * a
    return x, v


def final_state_loss(k, x0, v0, mass, damping, dt, steps, target):
    """Squared distance of the final positions from ``target``."""
    x, v = simulate(k, x0, v0, mass, damping, dt, steps)
    return np.sum((x - target) ** 2)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100, help="Euler steps per simulation (default: %(default)s)")
    parser.add_argument("--fit-steps", type=int, default=10, help="gradient descent steps of the fit (default: %(default)s)")
    parser.add_argument("--show", action="store_true", help="print the code s2sad generates for simulate")
    arguments = parser.parse_args(argv)

    n, dt, damping = 4, 0.01, 0.1
    mass = np.array([1.0, 1.5, 0.8, 1.2])
    x0 = np.arange(1, n + 1) * REST_LENGTH + np.array([0.3, -0.2, 0.25, 0.1])   # stretched a little
    v0 = np.zeros(n)
    true_k = np.array([5.0, 8.0, 4.0, 6.0])
    target, _ = simulate(true_k, x0, v0, mass, damping, dt, arguments.steps)
    args = (x0, v0, mass, damping, dt, arguments.steps, target)
    print(f"{n} masses, {arguments.steps} Euler steps of {dt}: {n * arguments.steps * 2} loop iterations per run")

    if arguments.show:
        s2sad.show(simulate, argnums=0)
    k = np.array([6.0, 6.0, 6.0, 6.0])
    value_and_grad = s2sad.value_and_grad(final_state_loss)        # with respect to k (argument 0)
    started = time.perf_counter()
    value, dk = value_and_grad(k, *args)
    first = time.perf_counter() - started
    started = time.perf_counter()
    value, dk = value_and_grad(k, *args)
    print(f"loss {value:.6f}, dloss/dk = {np.array2string(dk, precision=6)} "
          f"(first call {first:.2f} s with the transformation, then {time.perf_counter() - started:.3f} s)")

    numeric = numerical_gradient(final_state_loss, k, *args)
    error = np.max(np.abs(dk - numeric)) / np.max(np.abs(numeric))
    print(f"finite differences:  {np.array2string(numeric, precision=6)} (largest relative difference {error:.1e})")
    if not error < 1e-6:
        print("FAILED: s2sad's gradient disagrees with finite differences", file=sys.stderr)
        return 1

    # Fit k to the target end point: gradient descent, halving the step until the loss goes down.
    print(f"fitting the spring constants (true values {true_k}) from {k}:")
    initial, rate = value, 100.0
    for step in range(arguments.fit_steps):
        value, dk = value_and_grad(k, *args)
        while rate > 1e-8:
            candidate = k - rate * dk
            if final_state_loss(candidate, *args) < value:
                break
            rate /= 2
        k, rate = candidate, rate * 2
        print(f"  step {step + 1}: loss {final_state_loss(k, *args):.3e}  k = {np.array2string(k, precision=3)}")
    final = final_state_loss(k, *args)
    if not final < 0.1 * initial:
        print(f"FAILED: the fit reduced the loss only from {initial:.3e} to {final:.3e}", file=sys.stderr)
        return 1
    print(f"loss reduced from {initial:.3e} to {final:.3e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
