//! Rates and means with their 95% intervals (Wilson's for rates, the normal
//! approximation for means): an accuracy measurement's figures, a match's margins.

use super::Z_95;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    pub hits: u64,
    pub total: u64,
}

impl Rate {
    pub fn value(self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.hits as f64 / self.total as f64
        }
    }

    /// Wilson's score interval at 95%.
    pub fn interval(self) -> (f64, f64) {
        if self.total == 0 {
            return (0.0, 1.0);
        }
        let n = self.total as f64;
        let p = self.value();
        let z2 = Z_95 * Z_95;
        let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = Z_95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        ((centre - half).max(0.0), (centre + half).min(1.0))
    }
}

/// A mean with its 95% normal-approximation interval.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Mean {
    pub count: u64,
    pub sum: f64,
    pub sum_squares: f64,
}

impl Mean {
    pub fn add(&mut self, x: f64) {
        self.count += 1;
        self.sum += x;
        self.sum_squares += x * x;
    }

    pub fn value(self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }

    /// Half the width of the 95% interval: 1.96 standard errors (sample variance).
    pub fn half_width(self) -> f64 {
        if self.count < 2 {
            return f64::INFINITY;
        }
        let n = self.count as f64;
        let variance = ((self.sum_squares - self.sum * self.sum / n) / (n - 1.0)).max(0.0);
        Z_95 * (variance / n).sqrt()
    }
}
