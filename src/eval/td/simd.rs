//! The instruction sets the clipped network's kernels ([`super::clipped`]) are compiled
//! for, picked once when a model loads: AVX-512 with VNNI, AVX2, SSE2 (every x86-64 CPU)
//! or portable Rust (every other CPU). The kernels do integer arithmetic that cannot
//! overflow or saturate on the weights a network is allowed to hold, so every path gives
//! the same sums, bit for bit; the tests force each path the CPU has and compare.
//!
//! `EVALEARN_SIMD` (`scalar`, `sse2`, `avx2`, `avx512`) forces a path, to compare them
//! or to check a slower CPU's path on a faster one; a path the CPU lacks is refused.

use super::clipped::{LINE, Line};

/// Names the variable that forces a path.
pub const SIMD_VARIABLE: &str = "EVALEARN_SIMD";

/// One set of kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimdPath {
    /// Plain Rust, for any CPU (the compiler vectorises what it can for the build's
    /// target).
    Scalar,
    /// x86-64's baseline: `pmaddwd` for the second layer.
    Sse2,
    /// 256-bit registers: `vpmaddubsw` and `vpmaddwd`.
    Avx2,
    /// 512-bit registers and VNNI's `vpdpbusd` (AVX-512 F, BW and VNNI).
    Avx512,
}

impl SimdPath {
    /// Every path, slowest first.
    pub const ALL: [SimdPath; 4] = [
        SimdPath::Scalar,
        SimdPath::Sse2,
        SimdPath::Avx2,
        SimdPath::Avx512,
    ];

    /// As `EVALEARN_SIMD` and reports name it.
    pub fn name(self) -> &'static str {
        match self {
            SimdPath::Scalar => "scalar",
            SimdPath::Sse2 => "sse2",
            SimdPath::Avx2 => "avx2",
            SimdPath::Avx512 => "avx512",
        }
    }

    /// Whether this CPU runs the path.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                SimdPath::Scalar | SimdPath::Sse2 => true,
                SimdPath::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
                SimdPath::Avx512 => {
                    std::arch::is_x86_feature_detected!("avx512f")
                        && std::arch::is_x86_feature_detected!("avx512bw")
                        && std::arch::is_x86_feature_detected!("avx512vnni")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == SimdPath::Scalar
        }
    }

    /// The fastest path this CPU runs.
    pub fn best() -> SimdPath {
        *SimdPath::ALL
            .iter()
            .rev()
            .find(|p| p.available())
            .unwrap_or(&SimdPath::Scalar)
    }

    /// The path `EVALEARN_SIMD` names, or the fastest one without it; an error for a
    /// name that is no path or a path this CPU lacks.
    pub fn chosen() -> Result<SimdPath, String> {
        match std::env::var(SIMD_VARIABLE) {
            Ok(name) if !name.is_empty() => SimdPath::named(&name),
            _ => Ok(SimdPath::best()),
        }
    }

    /// The path called `name`, if this CPU runs it.
    pub fn named(name: &str) -> Result<SimdPath, String> {
        let names: Vec<&str> = SimdPath::ALL.iter().map(|p| p.name()).collect();
        let path = SimdPath::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                format!(
                    "{SIMD_VARIABLE}={name}: not a kernel path, expected {}",
                    names.join(", ")
                )
            })?;
        if !path.available() {
            return Err(format!(
                "{SIMD_VARIABLE}={name}: this CPU cannot run it (available: {})",
                SimdPath::ALL
                    .iter()
                    .filter(|p| p.available())
                    .map(|p| p.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Ok(path)
    }
}

/// A first layer's columns as [`apply`] reads them: feature `f`'s column is the `lines`
/// lines of `data` from line `f · lines`, for features 0 to `last`.
#[derive(Clone, Copy, Debug)]
pub struct Columns<'a> {
    pub data: &'a [Line],
    pub lines: usize,
    /// The last feature: kept by the network, so that no step divides to find it.
    pub last: usize,
}

/// `acc = parent + Σ columns[added] − Σ columns[removed]` over the first `lines` lines
/// of each, with wrapping `i16` lanes.
#[inline(always)]
pub fn apply(
    path: SimdPath,
    parent: &[Line],
    acc: &mut [Line],
    columns: Columns,
    added: &[u16],
    removed: &[u16],
) {
    let Columns { data, lines, last } = columns;
    assert!(parent.len() >= lines && acc.len() >= lines && lines > 0);
    // The kernels read feature min(f, last)'s column: always inside `data`.
    assert!((last + 1).saturating_mul(lines) <= data.len());
    match path {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the path was chosen only where the CPU has AVX-512 F and BW; the
        // lengths were checked above.
        SimdPath::Avx512 => unsafe {
            x86::apply_avx512(lines, last, parent, acc, data, added, removed)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above, with AVX2.
        SimdPath::Avx2 => unsafe {
            x86::apply_avx2(lines, last, parent, acc, data, added, removed)
        },
        _ => apply_plain(lines, parent, acc, data, added, removed),
    }
}

/// A clipped network's second hidden layer in integers, as the kernels read it.
#[derive(Clone, Copy, Debug)]
pub struct SecondLayerView<'a> {
    /// Its biases, with the shift's rounding: one a unit, a multiple of 16 units.
    pub biases: &'a [i32],
    /// Its `i8` weights by groups of 4 inputs: `bytes[(g · units + j) · 4 + k]` from
    /// input `4g + k` to unit `j`.
    pub bytes: &'a [i8],
    /// A unit's sum shifted right by it, then clipped to 0..=127, is its activation.
    pub shift: u32,
    /// Groups of 4 inputs whose products the AVX2 kernel adds in `i16` lanes before
    /// widening them: at most [`i16_groups`] of `bytes`, or the sums wrap.
    pub i16_groups: usize,
}

/// The most groups of 4 inputs (1, 2 or 4; aligned runs of them) whose products with
/// `bytes`' weights (as [`SecondLayerView::bytes`], `units` units) can be added in `i16`
/// lanes whatever the inputs (0..=127): a `vpmaddubsw` lane holds the products of 2
/// inputs, and the lanes of `K` groups add `2K` products, within ±32,767 when their
/// weights' absolute values add up to at most 32,767 / 127 = 258. So `vpmaddwd` widens
/// once per `K` groups instead of once per group, and the sums are the same integers.
pub fn i16_groups(bytes: &[i8], units: usize) -> usize {
    const MOST: i32 = i16::MAX as i32 / 127;
    let groups = bytes.len() / (4 * units);
    let weight = |g: usize, j: usize, k: usize| i32::from(bytes[(g * units + j) * 4 + k]).abs();
    [4, 2]
        .into_iter()
        .find(|&run| {
            (0..groups).step_by(run).all(|first| {
                (0..units).all(|j| {
                    [0, 2].into_iter().all(|pair| {
                        (first..(first + run).min(groups))
                            .map(|g| weight(g, j, pair) + weight(g, j, pair + 1))
                            .sum::<i32>()
                            <= MOST
                    })
                })
            })
        })
        .unwrap_or(1)
}

/// The layers past the first of a clipped network with a second layer, on the vector
/// paths, all in registers: the first layer's sums `acc` clipped to bytes, the second
/// layer's sums `b2[j] + Σ_i byte_i · w[(g · units + j) · 4 + k]` over `i = 4g + k`
/// ([`SecondLayerView`]), and the head over its clipped activations
/// ([`head_over_sums`]). `None` on the other paths, which compute the second layer by
/// pairs.
#[inline]
pub fn forward(
    path: SimdPath,
    acc: &[Line],
    layer: &SecondLayerView,
    head: &[i32],
    bias: i32,
) -> Option<i32> {
    let (b2, w, shift) = (layer.biases, layer.bytes, layer.shift);
    let units = b2.len();
    assert!(acc.len().is_multiple_of(2) && (16..=128).contains(&units) && units.is_multiple_of(16));
    assert!(w.len() >= acc.len() * LINE * units && head.len() >= units && shift < 32);
    match path {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: chosen only where the CPU has AVX-512 F, BW and VNNI; lengths checked.
        SimdPath::Avx512 => Some(unsafe { x86::forward_avx512(acc, b2, w, shift, head, bias) }),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: chosen only where the CPU has AVX2; lengths checked.
        SimdPath::Avx2 => Some(unsafe { x86::forward_avx2(acc, layer, head, bias) }),
        _ => None,
    }
}

/// The output of a head over the second layer's `sums`: `bias + Σ_j a_j · head_j` with
/// `a_j = min(max(sums_j >> shift, 0), 127)` (the products and the total fit an `i32`:
/// [`super::clipped::ClippedNet::new`] chose the head's scale so).
#[inline]
pub fn head_over_sums(sums: &[i32], shift: u32, head: &[i32], bias: i32) -> i32 {
    head_plain(sums, shift, head, bias)
}

/// [`head_over_sums`] in plain Rust (the vector paths compile this same loop).
#[inline(always)]
fn head_plain(sums: &[i32], shift: u32, head: &[i32], bias: i32) -> i32 {
    let mut total = bias;
    for (&s, &w) in sums.iter().zip(head) {
        total = total.wrapping_add((s >> shift).clamp(0, 127).wrapping_mul(w));
    }
    total
}

/// [`apply`] in plain Rust, a line at a time.
fn apply_plain(
    lines: usize,
    parent: &[Line],
    acc: &mut [Line],
    columns: &[Line],
    added: &[u16],
    removed: &[u16],
) {
    for l in 0..lines {
        let mut sums = parent[l].0;
        for &f in added {
            let column = &columns[usize::from(f) * lines + l].0;
            for k in 0..LINE {
                sums[k] = sums[k].wrapping_add(column[k]);
            }
        }
        for &f in removed {
            let column = &columns[usize::from(f) * lines + l].0;
            for k in 0..LINE {
                sums[k] = sums[k].wrapping_sub(column[k]);
            }
        }
        acc[l].0 = sums;
    }
}

/// Adds to each of the second layer's `sums` (blocks of 16 units) its weights `rows` (by
/// pairs of first-layer units: `rows[p · N + c][2k + r]` from unit `2p + r` to unit
/// `16c + k`) times the first-layer activations `pairs` (unit 2p's in the low 16 bits of
/// `pairs[p]`, unit 2p + 1's in the high ones, each at most 32,767). The plain form of
/// [`pair_sums_sse2`].
#[inline(always)]
pub(super) fn pair_sums<const N: usize>(
    sums: &mut [[i32; 16]; N],
    rows: &[[i16; 32]],
    pairs: &[u32],
) {
    for (rows, &pair) in rows.chunks_exact(N).zip(pairs) {
        let (h0, h1) = (
            i32::from(pair as u16 as i16),
            i32::from((pair >> 16) as u16 as i16),
        );
        for (s, w) in sums.iter_mut().zip(rows) {
            for k in 0..16 {
                s[k] += i32::from(w[2 * k]) * h0 + i32::from(w[2 * k + 1]) * h1;
            }
        }
    }
}

/// [`pair_sums`] by SSE2's `pmaddwd`: one instruction multiplies four units' weights from
/// a pair of first-layer units by the pair's activations and adds each unit's two
/// products (the compiler, left to itself, spends two on it).
///
/// # Safety
/// The CPU must have SSE2: every x86-64 CPU does.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
pub(super) fn pair_sums_sse2<const N: usize>(
    sums: &mut [[i32; 16]; N],
    rows: &[[i16; 32]],
    pairs: &[u32],
) {
    use std::arch::x86_64::{__m128i, _mm_add_epi32, _mm_loadu_si128, _mm_madd_epi16};
    use std::arch::x86_64::{_mm_set1_epi32, _mm_storeu_si128};
    let mut acc: [[__m128i; 4]; N] = std::array::from_fn(|c| {
        std::array::from_fn(|q| {
            // SAFETY: reads sums[c][4q..4q + 4], inside the block.
            unsafe { _mm_loadu_si128(sums[c][4 * q..4 * q + 4].as_ptr().cast()) }
        })
    });
    for (rows, &pair) in rows.chunks_exact(N).zip(pairs) {
        let h = _mm_set1_epi32(pair as i32);
        for (a, w) in acc.iter_mut().zip(rows) {
            for (q, a) in a.iter_mut().enumerate() {
                // SAFETY: reads w[8q..8q + 8], inside the row.
                let x = unsafe { _mm_loadu_si128(w[8 * q..8 * q + 8].as_ptr().cast()) };
                *a = _mm_add_epi32(*a, _mm_madd_epi16(x, h));
            }
        }
    }
    for (s, a) in sums.iter_mut().zip(&acc) {
        for (q, a) in a.iter().enumerate() {
            // SAFETY: writes s[4q..4q + 4], inside the block.
            unsafe { _mm_storeu_si128(s[4 * q..4 * q + 4].as_mut_ptr().cast(), *a) };
        }
    }
}

/// The first layer's clipped activations `min(max(acc, 0), 127)` as bytes, `out.len()` of
/// them (a multiple of 64).
#[inline]
pub fn clip_to_bytes(path: SimdPath, acc: &[Line], out: &mut [u8]) {
    assert!(out.len().is_multiple_of(64) && acc.len() * LINE >= out.len());
    match path {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: chosen only where the CPU has AVX-512 F and BW; lengths checked.
        SimdPath::Avx512 => unsafe { x86::clip_avx512(acc, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: chosen only where the CPU has AVX2; lengths checked.
        SimdPath::Avx2 => unsafe { x86::clip_avx2(acc, out) },
        _ => {
            for (i, o) in out.iter_mut().enumerate() {
                *o = acc[i / LINE].0[i % LINE].clamp(0, 127) as u8;
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Line;
    use std::arch::x86_64::*;

    /// Calls `$f::<N>(…)` with `N` the constant equal to `$n` (1 to 8): the loops over
    /// registers then unroll and the sums stay in registers.
    macro_rules! by_count {
        ($n:expr, $f:ident ( $($arg:expr),* )) => {
            match $n {
                1 => $f::<1>($($arg),*),
                2 => $f::<2>($($arg),*),
                3 => $f::<3>($($arg),*),
                4 => $f::<4>($($arg),*),
                5 => $f::<5>($($arg),*),
                6 => $f::<6>($($arg),*),
                7 => $f::<7>($($arg),*),
                _ => $f::<8>($($arg),*),
            }
        };
    }

    /// Line `start` of feature `min(f, last)`'s column: its other lines are at constant
    /// offsets from it, which the loads take as they are (no index arithmetic a line).
    ///
    /// # Safety
    /// `columns` holds `(last + 1) · lines` lines and `start < lines`.
    #[inline(always)]
    unsafe fn column_line(
        columns: &[Line],
        f: u16,
        last: usize,
        lines: usize,
        start: usize,
    ) -> *const Line {
        // SAFETY: the line is inside `columns` by the caller's bounds.
        unsafe {
            columns
                .as_ptr()
                .add(usize::from(f).min(last) * lines + start)
        }
    }

    /// Lines (of 32 `i16`) summed in registers at once: 8 lines are 8 zmm or 16 ymm
    /// registers, a 256-unit layer in one pass.
    const REGS: usize = 8;

    /// [`super::apply`] with 512-bit registers: up to 8 lines (256 units) in registers
    /// while every changed column is added.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn apply_avx512(
        lines: usize,
        last: usize,
        parent: &[Line],
        acc: &mut [Line],
        columns: &[Line],
        added: &[u16],
        removed: &[u16],
    ) {
        let mut start = 0;
        while start < lines {
            let count = (lines - start).min(REGS);
            // SAFETY: lines start..start + count exist in parent and acc, and features
            // up to `last` in columns (the caller checked).
            unsafe {
                by_count!(
                    count,
                    lines512(start, lines, last, parent, acc, columns, added, removed)
                )
            };
            start += count;
        }
    }

    /// Lines `start..start + N` of [`apply_avx512`].
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn lines512<const N: usize>(
        start: usize,
        lines: usize,
        last: usize,
        parent: &[Line],
        acc: &mut [Line],
        columns: &[Line],
        added: &[u16],
        removed: &[u16],
    ) {
        let line = |base: *const Line, k: usize| -> __m512i {
            // SAFETY: the callers' lines, 64-byte aligned.
            unsafe { _mm512_load_si512(base.add(k).cast()) }
        };
        // SAFETY: the caller's bounds are column_line's.
        let column = |f: u16| unsafe { column_line(columns, f, last, lines, start) };
        let mut r: [__m512i; N] = std::array::from_fn(|k| line(parent.as_ptr(), start + k));
        for &f in added {
            let column = column(f);
            for (k, r) in r.iter_mut().enumerate() {
                *r = _mm512_add_epi16(*r, line(column, k));
            }
        }
        for &f in removed {
            let column = column(f);
            for (k, r) in r.iter_mut().enumerate() {
                *r = _mm512_sub_epi16(*r, line(column, k));
            }
        }
        for (k, r) in r.iter().enumerate() {
            // SAFETY: line start + k of acc.
            unsafe { _mm512_store_si512(acc.as_mut_ptr().add(start + k).cast(), *r) };
        }
    }

    /// [`super::apply`] with 256-bit registers, two per line.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn apply_avx2(
        lines: usize,
        last: usize,
        parent: &[Line],
        acc: &mut [Line],
        columns: &[Line],
        added: &[u16],
        removed: &[u16],
    ) {
        let mut start = 0;
        while start < lines {
            let count = (lines - start).min(REGS / 2);
            // SAFETY: as in apply_avx512.
            unsafe {
                by_count!(
                    count,
                    lines256(start, lines, last, parent, acc, columns, added, removed)
                )
            };
            start += count;
        }
    }

    /// Lines `start..start + N` of [`apply_avx2`] (2N registers).
    #[target_feature(enable = "avx2")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn lines256<const N: usize>(
        start: usize,
        lines: usize,
        last: usize,
        parent: &[Line],
        acc: &mut [Line],
        columns: &[Line],
        added: &[u16],
        removed: &[u16],
    ) {
        let half = |base: *const Line, k: usize| -> __m256i {
            // SAFETY: half k % 2 of the callers' line k / 2, 32-byte aligned.
            unsafe { _mm256_load_si256(base.add(k / 2).cast::<__m256i>().add(k % 2)) }
        };
        // SAFETY: the caller's bounds are column_line's.
        let column = |f: u16| unsafe { column_line(columns, f, last, lines, start) };
        let mut lo: [__m256i; N] =
            std::array::from_fn(|k| half(parent.as_ptr(), 2 * start + 2 * k));
        let mut hi: [__m256i; N] =
            std::array::from_fn(|k| half(parent.as_ptr(), 2 * start + 2 * k + 1));
        for &f in added {
            let column = column(f);
            for k in 0..N {
                lo[k] = _mm256_add_epi16(lo[k], half(column, 2 * k));
                hi[k] = _mm256_add_epi16(hi[k], half(column, 2 * k + 1));
            }
        }
        for &f in removed {
            let column = column(f);
            for k in 0..N {
                lo[k] = _mm256_sub_epi16(lo[k], half(column, 2 * k));
                hi[k] = _mm256_sub_epi16(hi[k], half(column, 2 * k + 1));
            }
        }
        for k in 0..N {
            // SAFETY: line start + k of acc, its two halves.
            unsafe {
                let line = acc.as_mut_ptr().add(start + k).cast::<__m256i>();
                _mm256_store_si256(line, lo[k]);
                _mm256_store_si256(line.add(1), hi[k]);
            }
        }
    }

    /// [`super::clip_to_bytes`] with 512-bit registers: two lines packed to 64 bytes
    /// (saturating to −128..=127, then the negatives to 0), the 128-bit lanes the pack
    /// interleaves put back in order.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    pub(super) unsafe fn clip_avx512(acc: &[Line], out: &mut [u8]) {
        let order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
        let zero = _mm512_setzero_si512();
        for (i, chunk) in out.chunks_exact_mut(64).enumerate() {
            // SAFETY: lines 2i and 2i + 1 exist (acc.len() · 32 ≥ out.len()), aligned.
            let (a, b) = unsafe {
                (
                    _mm512_load_si512(acc.as_ptr().add(2 * i).cast()),
                    _mm512_load_si512(acc.as_ptr().add(2 * i + 1).cast()),
                )
            };
            let packed = _mm512_max_epi8(_mm512_packs_epi16(a, b), zero);
            let ordered = _mm512_permutexvar_epi64(order, packed);
            // SAFETY: the chunk holds 64 bytes.
            unsafe { _mm512_storeu_si512(chunk.as_mut_ptr().cast(), ordered) };
        }
    }

    /// [`super::clip_to_bytes`] with 256-bit registers.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn clip_avx2(acc: &[Line], out: &mut [u8]) {
        let zero = _mm256_setzero_si256();
        let halves = acc.as_ptr().cast::<__m256i>();
        for (i, chunk) in out.chunks_exact_mut(32).enumerate() {
            // SAFETY: halves 2i and 2i + 1 lie in the lines (acc.len() · 64 bytes ≥
            // 2 · out.len()), 32-byte aligned.
            let (a, b) = unsafe {
                (
                    _mm256_load_si256(halves.add(2 * i)),
                    _mm256_load_si256(halves.add(2 * i + 1)),
                )
            };
            let packed = _mm256_max_epi8(_mm256_packs_epi16(a, b), zero);
            let ordered = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
            // SAFETY: the chunk holds 32 bytes.
            unsafe { _mm256_storeu_si256(chunk.as_mut_ptr().cast(), ordered) };
        }
    }

    /// Calls `$f::<N>(…)` (or `$f::<N, K>(…)`) for `N` = `$n` blocks of 16 second-layer
    /// units (1 to 8).
    macro_rules! by_blocks {
        ($n:expr, $f:ident $(::<$k:literal>)? ( $($arg:expr),* )) => {
            match $n {
                1 => $f::<1 $(, $k)?>($($arg),*),
                2 => $f::<2 $(, $k)?>($($arg),*),
                3 => $f::<3 $(, $k)?>($($arg),*),
                4 => $f::<4 $(, $k)?>($($arg),*),
                5 => $f::<5 $(, $k)?>($($arg),*),
                6 => $f::<6 $(, $k)?>($($arg),*),
                7 => $f::<7 $(, $k)?>($($arg),*),
                _ => $f::<8 $(, $k)?>($($arg),*),
            }
        };
    }

    /// [`super::forward`] with AVX-512 VNNI.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn forward_avx512(
        acc: &[Line],
        b2: &[i32],
        w: &[i8],
        shift: u32,
        head: &[i32],
        bias: i32,
    ) -> i32 {
        // SAFETY: the caller checked the lengths; the CPU has the features.
        unsafe { by_blocks!(b2.len() / 16, forward512(acc, b2, w, shift, head, bias)) }
    }

    /// [`forward_avx512`] for `N` blocks of 16 second-layer units. Two lines of sums
    /// are clipped to one register of 64 bytes (16 groups of 4 inputs); each group is
    /// broadcast from it by two shuffles (no round trip through memory, whose narrow
    /// reloads of a wide store would wait on the store) and `vpdpbusd` adds its 4
    /// products to 16 units' sums. Each block is summed in two registers, even and odd
    /// groups, so that no chain waits on every `vpdpbusd`'s latency.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    unsafe fn forward512<const N: usize>(
        acc: &[Line],
        b2: &[i32],
        w: &[i8],
        shift: u32,
        head: &[i32],
        bias: i32,
    ) -> i32 {
        let units = 16 * N;
        // SAFETY (every load below): the caller checked that `acc` holds the lines, `b2`
        // and `head` the units and `w` every group's weights.
        let mut even: [__m512i; N] =
            std::array::from_fn(|c| unsafe { _mm512_loadu_si512(b2.as_ptr().add(16 * c).cast()) });
        let mut odd = [_mm512_setzero_si512(); N];
        let order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
        let zero = _mm512_setzero_si512();
        let add = |sums: &mut [__m512i; N], x: __m512i, g: usize| {
            let row = w.as_ptr().wrapping_add(g * units * 4);
            for (c, s) in sums.iter_mut().enumerate() {
                let wv = unsafe { _mm512_loadu_si512(row.add(64 * c).cast()) };
                *s = _mm512_dpbusd_epi32(*s, x, wv);
            }
        };
        for pair in 0..acc.len() / 2 {
            let (a, b) = unsafe {
                (
                    _mm512_load_si512(acc.as_ptr().add(2 * pair).cast()),
                    _mm512_load_si512(acc.as_ptr().add(2 * pair + 1).cast()),
                )
            };
            let bytes =
                _mm512_permutexvar_epi64(order, _mm512_max_epi8(_mm512_packs_epi16(a, b), zero));
            let lanes = [
                _mm512_shuffle_i32x4::<0x00>(bytes, bytes),
                _mm512_shuffle_i32x4::<0x55>(bytes, bytes),
                _mm512_shuffle_i32x4::<0xAA>(bytes, bytes),
                _mm512_shuffle_i32x4::<0xFF>(bytes, bytes),
            ];
            for (l, lane) in lanes.into_iter().enumerate() {
                let g = 16 * pair + 4 * l;
                add(&mut even, _mm512_shuffle_epi32::<0x00>(lane), g);
                add(&mut odd, _mm512_shuffle_epi32::<0x55>(lane), g + 1);
                add(&mut even, _mm512_shuffle_epi32::<0xAA>(lane), g + 2);
                add(&mut odd, _mm512_shuffle_epi32::<0xFF>(lane), g + 3);
            }
        }
        let count = _mm_cvtsi32_si128(shift as i32);
        let top = _mm512_set1_epi32(127);
        let mut total = _mm512_setzero_si512();
        for c in 0..N {
            let sums = _mm512_add_epi32(even[c], odd[c]);
            let a = _mm512_min_epi32(_mm512_max_epi32(_mm512_sra_epi32(sums, count), zero), top);
            let h = unsafe { _mm512_loadu_si512(head.as_ptr().add(16 * c).cast()) };
            total = _mm512_add_epi32(total, _mm512_mullo_epi32(a, h));
        }
        bias.wrapping_add(_mm512_reduce_add_epi32(total))
    }

    /// [`super::forward`] with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn forward_avx2(
        acc: &[Line],
        layer: &super::SecondLayerView,
        head: &[i32],
        bias: i32,
    ) -> i32 {
        let (b2, w, shift) = (layer.biases, layer.bytes, layer.shift);
        // SAFETY: as above.
        unsafe {
            match layer.i16_groups {
                4 => by_blocks!(
                    b2.len() / 16,
                    forward256::<4>(acc, b2, w, shift, head, bias)
                ),
                2 => by_blocks!(
                    b2.len() / 16,
                    forward256::<2>(acc, b2, w, shift, head, bias)
                ),
                _ => by_blocks!(
                    b2.len() / 16,
                    forward256::<1>(acc, b2, w, shift, head, bias)
                ),
            }
        }
    }

    /// [`forward_avx2`] for `N` blocks of 16 second-layer units, two registers each. A
    /// line of sums is clipped to one register of 32 bytes (8 groups of 4 inputs), each
    /// group broadcast from it by two shuffles; `vpmaddubsw` multiplies its 4 bytes by 8
    /// units' weights and adds pairs (at most 2 · 127 · 127, so no saturation). The
    /// products of `K` groups are added in `i16` lanes (the weights allow it:
    /// [`super::i16_groups`]), then `vpmaddwd` by ones adds the pairs' pairs
    /// into the `i32` sums.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn forward256<const N: usize, const K: usize>(
        acc: &[Line],
        b2: &[i32],
        w: &[i8],
        shift: u32,
        head: &[i32],
        bias: i32,
    ) -> i32 {
        let units = 16 * N;
        // SAFETY (every load below): as in forward512.
        let mut lo: [__m256i; N] =
            std::array::from_fn(|c| unsafe { _mm256_loadu_si256(b2.as_ptr().add(16 * c).cast()) });
        let mut hi: [__m256i; N] = std::array::from_fn(|c| unsafe {
            _mm256_loadu_si256(b2.as_ptr().add(16 * c + 8).cast())
        });
        let ones = _mm256_set1_epi16(1);
        let zero = _mm256_setzero_si256();
        // The products of group `g`'s bytes `x` with each block's weights, pairs added.
        let products = |x: __m256i, g: usize, c: usize| {
            let row = w.as_ptr().wrapping_add(g * units * 4 + 64 * c);
            unsafe {
                (
                    _mm256_maddubs_epi16(x, _mm256_loadu_si256(row.cast())),
                    _mm256_maddubs_epi16(x, _mm256_loadu_si256(row.add(32).cast())),
                )
            }
        };
        for line in 0..acc.len() {
            let (a, b) = unsafe {
                let halves = acc.as_ptr().add(line).cast::<__m256i>();
                (_mm256_load_si256(halves), _mm256_load_si256(halves.add(1)))
            };
            let packed = _mm256_max_epi8(_mm256_packs_epi16(a, b), zero);
            let bytes = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
            let lanes = [
                _mm256_permute2x128_si256::<0x00>(bytes, bytes),
                _mm256_permute2x128_si256::<0x11>(bytes, bytes),
            ];
            for (l, lane) in lanes.into_iter().enumerate() {
                let g = 8 * line + 4 * l;
                let xs = [
                    _mm256_shuffle_epi32::<0x00>(lane),
                    _mm256_shuffle_epi32::<0x55>(lane),
                    _mm256_shuffle_epi32::<0xAA>(lane),
                    _mm256_shuffle_epi32::<0xFF>(lane),
                ];
                for first in (0..4).step_by(K) {
                    for c in 0..N {
                        let (mut pl, mut ph) = products(xs[first], g + first, c);
                        for k in 1..K {
                            let (ql, qh) = products(xs[first + k], g + first + k, c);
                            pl = _mm256_add_epi16(pl, ql);
                            ph = _mm256_add_epi16(ph, qh);
                        }
                        lo[c] = _mm256_add_epi32(lo[c], _mm256_madd_epi16(pl, ones));
                        hi[c] = _mm256_add_epi32(hi[c], _mm256_madd_epi16(ph, ones));
                    }
                }
            }
        }
        let count = _mm_cvtsi32_si128(shift as i32);
        let top = _mm256_set1_epi32(127);
        let mut total = _mm256_setzero_si256();
        for c in 0..2 * N {
            let sums = if c % 2 == 0 { lo[c / 2] } else { hi[c / 2] };
            let a = _mm256_min_epi32(_mm256_max_epi32(_mm256_sra_epi32(sums, count), zero), top);
            let h = unsafe { _mm256_loadu_si256(head.as_ptr().add(8 * c).cast()) };
            total = _mm256_add_epi32(total, _mm256_mullo_epi32(a, h));
        }
        let half = _mm_add_epi32(
            _mm256_castsi256_si128(total),
            _mm256_extracti128_si256::<1>(total),
        );
        let quarter = _mm_add_epi32(half, _mm_shuffle_epi32::<0b01_00_11_10>(half));
        let one = _mm_add_epi32(quarter, _mm_shuffle_epi32::<0b10_11_00_01>(quarter));
        bias.wrapping_add(_mm_cvtsi128_si32(one))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt as _;

    /// The SSE2 sums equal the plain ones for every block count, with weights and
    /// activations at their ends (a product of −32,768 and 32,767) and at random.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn pmaddwd_sums_equal_the_plain_sums() {
        fn check<const N: usize>(rng: &mut crate::rng::Rng) {
            for pairs_count in [1, 2, 24, 64] {
                let rows: Vec<[i16; 32]> = (0..pairs_count * N)
                    .map(|x| {
                        std::array::from_fn(|i| match (x, i) {
                            (0, 0) => i16::MIN,
                            (0, 1) => i16::MAX,
                            _ => rng.random_range(-300..=300),
                        })
                    })
                    .collect();
                let pairs: Vec<u32> = (0..pairs_count)
                    .map(|p| match p {
                        0 => 0x7fff_7fff,
                        _ => rng.random_range(0..=32_767) | rng.random_range(0..=32_767) << 16,
                    })
                    .collect();
                let start: [[i32; 16]; N] =
                    std::array::from_fn(|_| std::array::from_fn(|_| rng.random_range(-1000..1000)));
                let (mut plain, mut fast) = (start, start);
                pair_sums(&mut plain, &rows, &pairs);
                // SAFETY: SSE2 is part of x86-64.
                unsafe { pair_sums_sse2(&mut fast, &rows, &pairs) };
                assert_eq!(plain, fast, "{N} blocks, {pairs_count} pairs");
            }
        }
        let mut rng = crate::rng::stream(7, 0);
        check::<1>(&mut rng);
        check::<2>(&mut rng);
        check::<3>(&mut rng);
        check::<7>(&mut rng);
        check::<8>(&mut rng);
    }

    /// Second-layer weights whose runs of `run` groups add up, in each `vpmaddubsw` lane,
    /// to exactly the most [`i16_groups`] allows (258 in absolute value, one sign a run),
    /// so that activations of 127 bring an `i16` lane to 32,766: the forward kernels give
    /// the sums of a plain `i64` reference, and one weight more (259) takes a shorter run.
    #[test]
    fn runs_of_groups_added_in_i16_give_the_widened_sums() {
        fn weights(run: usize, units: usize, groups: usize, rng: &mut crate::rng::Rng) -> Vec<i8> {
            let per_run = 2 * run; // weights a lane adds over a run
            let (base, extra) = (258 / per_run as i32, 258 % per_run);
            let mut bytes = vec![0i8; groups * units * 4];
            for j in 0..units {
                for first in (0..groups).step_by(run) {
                    let sign = if rng.random_range(0..2) == 0 { 1 } else { -1 };
                    for pair in [0, 2] {
                        for n in 0..per_run {
                            let (g, k) = (first + n / 2, pair + n % 2);
                            let w = base + i32::from(n < extra);
                            bytes[(g * units + j) * 4 + k] = (sign * w) as i8;
                        }
                    }
                }
            }
            bytes
        }
        let mut rng = crate::rng::stream(11, 0);
        for (run, lines, units) in [(4, 4, 32), (4, 2, 16), (2, 4, 48), (2, 16, 128)] {
            let groups = lines * LINE / 4;
            let mut bytes = weights(run, units, groups, &mut rng);
            assert_eq!(
                i16_groups(&bytes, units),
                run,
                "{run} groups, {units} units"
            );
            let biases: Vec<i32> = (0..units).map(|_| rng.random_range(-5000..5000)).collect();
            let head: Vec<i32> = (0..units).map(|_| rng.random_range(-300..300)).collect();
            for case in 0..3 {
                let acc: Vec<Line> = (0..lines)
                    .map(|_| {
                        Line(std::array::from_fn(|_| match case {
                            0 => 127 + rng.random_range(0..200),
                            1 => rng.random_range(-200..300),
                            _ => 0,
                        }))
                    })
                    .collect();
                let layer = SecondLayerView {
                    biases: &biases,
                    bytes: &bytes,
                    shift: 7,
                    i16_groups: run,
                };
                let sums: Vec<i32> = (0..units)
                    .map(|j| {
                        let products: i64 = (0..lines * LINE)
                            .map(|i| {
                                let a = i64::from(acc[i / LINE].0[i % LINE].clamp(0, 127));
                                a * i64::from(bytes[(i / 4 * units + j) * 4 + i % 4])
                            })
                            .sum();
                        i32::try_from(i64::from(biases[j]) + products).unwrap()
                    })
                    .collect();
                let expected = head_plain(&sums, 7, &head, 9);
                for path in [SimdPath::Avx2, SimdPath::Avx512] {
                    if path.available() {
                        assert_eq!(
                            forward(path, &acc, &layer, &head, 9),
                            Some(expected),
                            "{} {run} groups, {units} units, case {case}",
                            path.name()
                        );
                    }
                }
            }
            bytes[4 * units] = bytes[4 * units].signum() * (bytes[4 * units].abs() + 1);
            assert!(i16_groups(&bytes, units) < run, "one more than the most");
        }
    }
}
