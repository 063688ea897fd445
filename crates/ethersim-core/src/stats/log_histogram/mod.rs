//! A log-linear histogram of picosecond values whose counters never hold more than
//! 8 KiB, for the percentiles of every flow's delays.
//!
//! An HDR histogram sized for 1 ns to 1 ms at three significant digits holds about
//! 100 KiB whatever it sees, so a run with 10,000 flows spent a gigabyte on them. This
//! one keeps counters only between the lowest and the highest bucket a flow touched, and
//! halves its resolution rather than outgrow its bound.
//!
//! # Buckets
//!
//! Values are counted in units of 512 ps. Below 512 units (262.144 ns,
//! [`LINEAR_LIMIT_PS`]) each unit is a bucket of its own; from there up, each power of
//! two `[2^e, 2^(e+1))` units is cut into 512 equal buckets, so a bucket is never wider
//! than 1/512 of the values in it. The index takes an integer base-2 logarithm (a
//! leading-zero count) and two shifts, no floating point, as it is computed for every
//! packet.
//!
//! # Resolution and collapse
//!
//! The counters cover a window of bucket indices that holds the range of values seen,
//! `[min, max]`, and grows on demand on either side. When that range would need more
//! counters than fit in [`MAX_COUNTER_BYTES`], each pair of adjacent buckets is merged
//! into one and the level goes up by one: the resolution halves everywhere at once (the
//! uniform collapse of UDDSketch), so one error bound holds for the whole histogram.
//! Merged pairs never straddle a power of two, as a power of two holds 512 buckets.
//!
//! Which level a histogram ends at depends only on the range of its values (the smallest
//! level whose buckets cover it within the bound), never on their order, so recording
//! two sets into one histogram or merging two histograms gives the same counts (while
//! no count passes `u32`, below).
//!
//! Nothing is allocated before the first value; the first window holds 16 counters
//! (64 bytes). When the range outgrows the window, the counters are laid out anew in a
//! window twice as long as the range, with the room on the side the range grew on, in
//! the same allocation when it is large enough (a collapse always is): a flow allocates
//! only when its range of delays outgrows all it had, and recording allocates nothing
//! in a steady state.
//!
//! # Accuracy
//!
//! A percentile is the order statistic of the rank HDR histograms use (the smallest
//! bucket whose cumulative count reaches `ceil(q * count)`, at least 1). Its reported
//! value is the midpoint of that bucket, clamped to the exact minimum and maximum (the
//! first rank is the exact minimum, the last the exact maximum). With `b = 9 − level`
//! sub-bucket bits, a true order statistic `v` is reported as `v'` with
//! `|v' − v| ≤ 2^−(b+1) · max(v, 262.144 ns)`:
//!
//! | level | buckets per power of two | worst relative error | range held (powers of two above 262 ns) |
//! |---|---|---|---|
//! | 0 | 512 | 0.098 % | 4 |
//! | 1 | 256 | 0.20 % | 8 |
//! | 2 | 128 | 0.39 % | 16 |
//! | 3 | 64 | 0.78 % | 32 |
//! | 4 | 32 | 1.6 % | every `u64` |
//!
//! Below 262.144 ns the same bound is absolute: 0.256 ns at level 0.
//!
//! # Counters
//!
//! Counters are `u32`, which doubles the range each level holds against `u64` in the
//! same bytes. A bucket passes `u32::MAX` only after more than four billion samples in
//! it (half a minute of minimum-size frames at 100 Gb/s, all within 0.2 % of one
//! delay); then every counter becomes a `u64` rather than saturate or wrap, which halves
//! the counters the bound allows and may cost one more level (at most level 5, 3.1 %).

/// log2 of the picoseconds in one unit of the linear region (512 ps).
const UNIT_SHIFT: u32 = 9;
/// Sub-bucket bits at full resolution: 512 buckets per power of two.
const FULL_BITS: u32 = 9;
/// Buckets per power of two at full resolution, and the linear region's units.
const SUB: u64 = 1 << FULL_BITS;
/// Values below this (262.144 ns) fall in the linear region of 512-ps buckets; above it
/// the error bound is relative.
pub const LINEAR_LIMIT_PS: u64 = 1 << (FULL_BITS + UNIT_SHIFT);
/// The most bytes a histogram's counters ever hold.
pub const MAX_COUNTER_BYTES: usize = 8 * 1024;
/// Counters the bound allows while they are `u32`.
const NARROW_CAP: usize = MAX_COUNTER_BYTES / 4;
/// Counters the bound allows once they are `u64`.
const WIDE_CAP: usize = MAX_COUNTER_BYTES / 8;
/// Counters of the smallest window: a flow whose delays barely vary (a light Poisson
/// flow on an idle network) costs 64 bytes.
const MIN_WINDOW: usize = 16;
/// Full-resolution indices: that of the largest `u64`, plus one.
const INDEX_COUNT: u32 = full_index(u64::MAX) + 1;

/// The full-resolution bucket of `ps`: `(shift << 9) + (x >> shift)` for `x` units,
/// `shift` the bits of `x` beyond the tenth (0 in the linear region and the first power
/// of two above it, which share the 512-ps width).
#[inline]
const fn full_index(ps: u64) -> u32 {
    let x = ps >> UNIT_SHIFT;
    let shift = (x | SUB).ilog2() - FULL_BITS;
    ((shift << FULL_BITS) as u64 + (x >> shift)) as u32
}

/// The lowest value of bucket `j` at `level` and the bucket's width, in ps.
fn bucket_bounds(j: u32, level: u32) -> (u64, u64) {
    // Its first full-resolution bucket `i` holds `m << shift` units up, `m` in [512, 1024)
    // above the linear region and `i` itself below.
    let i = j << level;
    let shift = (i >> FULL_BITS).saturating_sub(1);
    let m = u64::from(i - (shift << FULL_BITS));
    (m << shift << UNIT_SHIFT, 1 << (shift + level + UNIT_SHIFT))
}

/// Buckets needed at `level` to hold full-resolution buckets `lo..=hi`.
fn span(lo: u32, hi: u32, level: u32) -> usize {
    ((hi >> level) - (lo >> level) + 1) as usize
}

/// The counters of a window of buckets.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Counters {
    /// Every count fits in 32 bits.
    Narrow(Vec<u32>),
    /// Some count passed `u32::MAX`.
    Wide(Vec<u64>),
}

impl Counters {
    fn len(&self) -> usize {
        match self {
            Counters::Narrow(c) => c.len(),
            Counters::Wide(c) => c.len(),
        }
    }

    fn get(&self, t: usize) -> u64 {
        match self {
            Counters::Narrow(c) => u64::from(c[t]),
            Counters::Wide(c) => c[t],
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Counters::Narrow(c) => c.capacity() * 4,
            Counters::Wide(c) => c.capacity() * 8,
        }
    }
}

/// Counts of picosecond values in log-linear buckets, with the exact count, minimum and
/// maximum; see the [module documentation](self) for its buckets and accuracy.
#[derive(Clone, Debug)]
pub struct LogHistogram {
    counts: Counters,
    /// Bucket index, at `level`, of the first counter.
    offset: u32,
    /// Times the resolution was halved.
    level: u32,
    total: u64,
    min: u64,
    max: u64,
}

impl Default for LogHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LogHistogram {
    /// An empty histogram; it allocates nothing until its first value.
    pub const fn new() -> Self {
        LogHistogram {
            counts: Counters::Narrow(Vec::new()),
            offset: 0,
            level: 0,
            total: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    /// Counts one value, in ps. Once the window holds the values' range this allocates
    /// nothing: an index, a bounds check and an increment.
    #[inline]
    pub fn record(&mut self, ps: u64) {
        self.total += 1;
        self.min = self.min.min(ps);
        self.max = self.max.max(ps);
        let j = full_index(ps);
        let t = (j >> self.level).wrapping_sub(self.offset) as usize;
        if let Counters::Narrow(c) = &mut self.counts {
            if let Some(n) = c.get_mut(t) {
                if *n < u32::MAX {
                    *n += 1;
                    return;
                }
            }
        }
        self.add(j, 0, 1);
    }

    /// Adds another histogram's values to these, at the coarser of the two resolutions
    /// (or a coarser one still, if the joint range needs it).
    pub fn merge(&mut self, other: &LogHistogram) {
        if other.total == 0 {
            return;
        }
        self.total += other.total;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        if self.level < other.level || !self.covers_range() {
            let wide = matches!(self.counts, Counters::Wide(_));
            self.relayout(self.level.max(other.level), wide);
        }
        for (j, n) in other.buckets() {
            self.add(j, other.level, n);
        }
    }

    /// Values counted.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// The smallest value, exact (`None` when empty).
    pub fn min(&self) -> Option<u64> {
        (self.total > 0).then_some(self.min)
    }

    /// The largest value, exact (`None` when empty).
    pub fn max(&self) -> Option<u64> {
        (self.total > 0).then_some(self.max)
    }

    /// The value at quantile `q` in [0, 1] (`None` when empty): the order statistic of
    /// rank `ceil(q * count)` (at least 1), within [`Self::relative_error`] of it above
    /// [`LINEAR_LIMIT_PS`].
    pub fn value_at_quantile(&self, q: f64) -> Option<u64> {
        if self.total == 0 {
            return None;
        }
        // The rank rule of `hdrhistogram::Histogram::value_at_quantile`.
        let rank = ((q.clamp(0.0, 1.0) * self.total as f64).ceil() as u64).clamp(1, self.total);
        // The extreme ranks are known exactly.
        if rank == 1 {
            return Some(self.min);
        }
        if rank == self.total {
            return Some(self.max);
        }
        let mut seen = 0;
        for (j, n) in self.buckets() {
            seen += n;
            if seen >= rank {
                let (lo, width) = bucket_bounds(j, self.level);
                // The order statistic lies in this bucket and in [min, max], so clamping
                // the midpoint to them only brings it closer.
                return Some((lo + width / 2).clamp(self.min, self.max));
            }
        }
        unreachable!("the counts sum to the total")
    }

    /// Times the resolution was halved (0 to 5).
    pub fn level(&self) -> u32 {
        self.level
    }

    /// The worst relative error of a reported quantile at this histogram's resolution,
    /// `2^−(10 − level)`, for values above [`LINEAR_LIMIT_PS`]; below, that fraction of
    /// [`LINEAR_LIMIT_PS`] bounds the absolute error.
    pub fn relative_error(&self) -> f64 {
        f64::from(FULL_BITS + 1 - self.level).exp2().recip()
    }

    /// Bytes the counters hold on the heap (never above [`MAX_COUNTER_BYTES`]).
    pub fn heap_bytes(&self) -> usize {
        self.counts.heap_bytes()
    }

    /// The buckets holding values, lowest first: (index at `level`, count).
    fn buckets(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        (0..self.counts.len()).map(|t| (self.offset + t as u32, self.counts.get(t))).filter(|&(_, n)| n > 0)
    }

    /// Whether the window holds every bucket from the minimum's to the maximum's.
    fn covers_range(&self) -> bool {
        let lo = full_index(self.min) >> self.level;
        let hi = full_index(self.max) >> self.level;
        lo >= self.offset && ((hi - self.offset) as usize) < self.counts.len()
    }

    /// Adds `n` to the bucket holding the bucket `j` of `from_level` (at most `level`),
    /// laying the counters out anew if the range outgrew them or a count outgrows `u32`.
    /// The count, minimum and maximum already include it.
    #[inline(never)]
    fn add(&mut self, j: u32, from_level: u32, n: u64) {
        let wide = matches!(self.counts, Counters::Wide(_));
        if !self.covers_range() {
            self.relayout(self.level, wide);
        }
        let slot = |h: &Self| ((j >> (h.level - from_level)) - h.offset) as usize;
        if let Counters::Narrow(c) = &self.counts {
            if u64::from(c[slot(self)]) + n > u64::from(u32::MAX) {
                self.relayout(self.level, true);
            }
        }
        let t = slot(self);
        match &mut self.counts {
            // Checked above to stay within `u32`.
            Counters::Narrow(c) => c[t] += n as u32,
            Counters::Wide(c) => c[t] += n,
        }
    }

    /// Lays the counters out anew, `u64` if `wide`, at the finest level from `min_level`
    /// up whose window holds the range `[min, max]` within the memory bound, with room
    /// to grow. Allocates only when the window outgrows the counters' allocation.
    fn relayout(&mut self, min_level: u32, wide: bool) {
        let cap = if wide { WIDE_CAP } else { NARROW_CAP };
        let (lo_full, hi_full) = (full_index(self.min), full_index(self.max));
        let mut level = min_level;
        while span(lo_full, hi_full, level) > cap {
            level += 1;
        }
        let (lo, hi) = (lo_full >> level, hi_full >> level);
        let needed = span(lo_full, hi_full, level);
        // Room to grow as large as the range (and all the allocation already holds), so
        // a range growing a bucket at a time is laid out anew a logarithmic number of
        // times, and a heavy tail's new maxima seldom find the window too short.
        let indices = (((INDEX_COUNT - 1) >> level) + 1) as usize;
        let held = self.heap_bytes() / if wide { 8 } else { 4 };
        let len = (2 * needed).max(MIN_WINDOW).max(held).min(cap).min(indices);
        let start = self.window_start(lo, hi, level, len);

        // Folded on the stack, so that the allocation can be reused in place.
        let mut folded = [0u64; NARROW_CAP];
        let shift = level - self.level;
        for (j, n) in self.buckets() {
            folded[((j >> shift) - start) as usize] += n;
        }
        let folded = &folded[..len];
        if !wide && folded.iter().any(|&n| n > u64::from(u32::MAX)) {
            // Sums of merged pairs outgrew `u32`: the narrower bound of `u64` counters.
            return self.relayout(level, true);
        }
        match (&mut self.counts, wide) {
            (Counters::Narrow(c), false) => refill(c, folded.iter().map(|&n| n as u32)),
            (Counters::Wide(c), true) => refill(c, folded.iter().copied()),
            (counts, _) => *counts = Counters::Wide(folded.to_vec()),
        }
        (self.offset, self.level) = (start, level);
    }

    /// Where a window of `len` buckets at `level` holding `lo..=hi` starts: its room to
    /// grow on the side the range grew on (both sides for a first window), within the
    /// indices that exist.
    fn window_start(&self, lo: u32, hi: u32, level: u32, len: usize) -> u32 {
        // A window holds at most a few thousand buckets.
        let (lo, hi, len) = (i64::from(lo), i64::from(hi), i64::from(len as u32));
        let shift = level - self.level;
        let old_start = i64::from(self.offset >> shift);
        let wanted = if self.counts.len() == 0 {
            lo - (len - (hi - lo + 1)) / 2
        } else if lo < old_start {
            hi + 1 - len
        } else {
            lo
        };
        let indices = i64::from(((INDEX_COUNT - 1) >> level) + 1);
        wanted.clamp((hi + 1 - len).max(0), lo.min(indices - len)) as u32
    }
}

/// Replaces `counts` by `values`, reusing its allocation when that is large enough and
/// otherwise allocating exactly what they need (never the doubling `Vec` growth would
/// take, which could pass the memory bound).
fn refill<T>(counts: &mut Vec<T>, values: impl ExactSizeIterator<Item = T>) {
    counts.clear();
    counts.reserve_exact(values.len());
    counts.extend(values);
}

#[cfg(test)]
mod tests;
