//! The error function and the normal distribution, for match statistics.

// erf and the normal distribution
// ---------------------------------------------------------------------------------------

/// 1/√π.
const FRAC_1_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI / 2.0;

// W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp. 23
// (1969) 631–638, as coded in his CALERF (SPECFUN, ACM TOMS 715). The coefficients are
// copied verbatim, hence more digits than an f64 holds. Relative error ≲ 1e-16 in f64.
#[allow(clippy::excessive_precision)]
const ERF_A: [f64; 5] = [
    3.16112374387056560e00,
    1.13864154151050156e02,
    3.77485237685302021e02,
    3.20937758913846947e03,
    1.85777706184603153e-1,
];
#[allow(clippy::excessive_precision)]
const ERF_B: [f64; 4] = [
    2.36012909523441209e01,
    2.44024637934444173e02,
    1.28261652607737228e03,
    2.84423683343917062e03,
];
#[allow(clippy::excessive_precision)]
const ERF_C: [f64; 9] = [
    5.64188496988670089e-1,
    8.88314979438837594e00,
    6.61191906371416295e01,
    2.98635138197400131e02,
    8.81952221241769090e02,
    1.71204761263407058e03,
    2.05107837782607147e03,
    1.23033935479799725e03,
    2.15311535474403846e-8,
];
#[allow(clippy::excessive_precision)]
const ERF_D: [f64; 8] = [
    1.57449261107098347e01,
    1.17693950891312499e02,
    5.37181101862009858e02,
    1.62138957456669019e03,
    3.29079923573345963e03,
    4.36261909014324716e03,
    3.43936767414372164e03,
    1.23033935480374942e03,
];
#[allow(clippy::excessive_precision)]
const ERF_P: [f64; 6] = [
    3.05326634961232344e-1,
    3.60344899949804439e-1,
    1.25781726111229246e-1,
    1.60837851487422766e-2,
    6.58749161529837803e-4,
    1.63153871373020978e-2,
];
#[allow(clippy::excessive_precision)]
const ERF_Q: [f64; 5] = [
    2.56852019228982242e00,
    1.87295284992346047e00,
    5.27905102951428412e-1,
    6.05183413124413191e-2,
    2.33520497626869185e-3,
];

/// Below this |x|, erf is computed directly; above, through erfc.
const ERF_SMALL_LIMIT: f64 = 0.46875;
/// Above this x, erfc(x) underflows to 0 in f64.
const ERFC_ZERO_LIMIT: f64 = 26.543;

/// erf(x)/x for |x| ≤ 0.46875, from z = x².
fn erf_over_x_small(z: f64) -> f64 {
    let mut num = ERF_A[4] * z;
    let mut den = z;
    for i in 0..3 {
        num = (num + ERF_A[i]) * z;
        den = (den + ERF_B[i]) * z;
    }
    (num + ERF_A[3]) / (den + ERF_B[3])
}

/// erfc(y) for y > 0.46875.
fn erfc_large(y: f64) -> f64 {
    if y >= ERFC_ZERO_LIMIT {
        return 0.0;
    }
    let ratio = if y <= 4.0 {
        let mut num = ERF_C[8] * y;
        let mut den = y;
        for i in 0..7 {
            num = (num + ERF_C[i]) * y;
            den = (den + ERF_D[i]) * y;
        }
        (num + ERF_C[7]) / (den + ERF_D[7])
    } else {
        let z = 1.0 / (y * y);
        let mut num = ERF_P[5] * z;
        let mut den = z;
        for i in 0..4 {
            num = (num + ERF_P[i]) * z;
            den = (den + ERF_Q[i]) * z;
        }
        let r = z * (num + ERF_P[4]) / (den + ERF_Q[4]);
        (FRAC_1_SQRT_PI - r) / y
    };
    // exp(−y²) in two factors, as Cody does: y² rounded to a multiple of 1/16² is exact,
    // so the rounding error of y·y is not amplified by the exponential.
    let y_rounded = (y * 16.0).trunc() / 16.0;
    let rest = (y - y_rounded) * (y + y_rounded);
    (-y_rounded * y_rounded).exp() * (-rest).exp() * ratio
}

/// The error function erf(x) = (2/√π)·∫₀ˣ e^(−t²) dt (Cody's rational approximations,
/// error below 1e-15 everywhere).
pub fn erf(x: f64) -> f64 {
    let y = x.abs();
    if y <= ERF_SMALL_LIMIT {
        x * erf_over_x_small(y * y)
    } else if x < 0.0 {
        erfc_large(y) - 1.0
    } else {
        1.0 - erfc_large(y)
    }
}

/// The complementary error function erfc(x) = 1 − erf(x), accurate in the far tail.
pub fn erfc(x: f64) -> f64 {
    let y = x.abs();
    if y <= ERF_SMALL_LIMIT {
        1.0 - x * erf_over_x_small(y * y)
    } else if x < 0.0 {
        2.0 - erfc_large(y)
    } else {
        erfc_large(y)
    }
}

/// Standard normal cumulative distribution Φ(z) = ½·erfc(−z/√2).
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

// ---------------------------------------------------------------------------------------
// Tallies
// ---------------------------------------------------------------------------------------
