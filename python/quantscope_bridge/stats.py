"""Means with Student-t 95 % confidence intervals, without scipy.

For an integer number of degrees of freedom ν the t distribution's two-sided probability
A(t | ν) = P(|T| < t) has a closed form in θ = atan(t / √ν) (Abramowitz & Stegun 26.7.3):
  ν odd:  A = (2/π) [θ + sinθ cosθ (1 + 2/3 cos²θ + 2·4/(3·5) cos⁴θ + … up to cos^(ν−3)θ)]
  ν even: A = sinθ (1 + 1/2 cos²θ + 1·3/(2·4) cos⁴θ + … up to cos^(ν−2)θ)
The quantile is found by bisection on A(t) = 0.95, exact to ~1e-12.
"""

from __future__ import annotations

import math


def t_two_sided_probability(t: float, dof: int) -> float:
    theta = math.atan(t / math.sqrt(dof))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if dof % 2 == 1:
        series, term = (1.0, 1.0) if dof > 1 else (0.0, 0.0)
        for k in range(1, (dof - 1) // 2):
            term *= c2 * (2 * k) / (2 * k + 1)
            series += term
        return 2 / math.pi * (theta + s * math.cos(theta) * series)
    series, term = 1.0, 1.0
    for k in range(1, dof // 2):
        term *= c2 * (2 * k - 1) / (2 * k)
        series += term
    return s * series


def t_quantile_two_sided(confidence: float, dof: int) -> float:
    """t such that P(|T| < t) = confidence for T ~ Student-t(dof)."""
    lo, hi = 0.0, 1.0
    while t_two_sided_probability(hi, dof) < confidence:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_two_sided_probability(mid, dof) < confidence:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mean_ci95(values: list[float]) -> dict[str, object]:
    """{"mean", "ci95": [lo, hi]}; the interval is null for fewer than two values."""
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return {"mean": mean, "ci95": None}
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile_two_sided(0.95, n - 1) * math.sqrt(var / n)
    return {"mean": mean, "ci95": [mean - half, mean + half]}
