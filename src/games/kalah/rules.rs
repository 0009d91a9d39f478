//! The rule options of Kalah as data: stones per pit and the capture rule. Pits per side
//! are always six (Dubner's board); the options are named in `--game` texts and model
//! files as `kalah:6:S[:empty-capture]`.

/// Pits on each side.
pub const PITS: usize = 6;
/// Most stones a pit holds at the start in any variant.
pub const MAX_STONES_PER_PIT: u8 = 6;

/// Kalah's rule options. `Default` is Dubner's game: 6 stones a pit, a capture only when
/// the opposite pit holds stones.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct KalahRules {
    /// Stones in each pit at the start, 1..=6.
    pub stones: u8,
    /// A last stone landing in an own empty pit captures even when the opposite pit is
    /// empty (then only that stone goes to the store). Dubner's rule 1.3 does not.
    pub empty_capture: bool,
}

impl Default for KalahRules {
    fn default() -> Self {
        KalahRules {
            stones: 6,
            empty_capture: false,
        }
    }
}

impl KalahRules {
    /// Stones in play: 12 pits at [`KalahRules::stones`] each.
    pub const fn total(self) -> u32 {
        2 * PITS as u32 * self.stones as u32
    }

    /// True if the options are ones this crate plays (1..=6 stones a pit): every count
    /// then fits a `u8` and sowing never overflows.
    pub const fn is_valid(self) -> bool {
        self.stones >= 1 && self.stones <= MAX_STONES_PER_PIT
    }

    /// Checks the options of rules that came from outside (datasets, hand-built values).
    pub fn check(self) -> Result<KalahRules, String> {
        if self.is_valid() {
            Ok(self)
        } else {
            Err(format!(
                "kalah: {} stones a pit; 1..={MAX_STONES_PER_PIT} are played",
                self.stones
            ))
        }
    }

    /// `kalah` for the standard rules, else `kalah:6:S`, plus `:empty-capture` when set.
    pub fn name(self) -> String {
        if self == KalahRules::default() {
            return super::NAME.to_string();
        }
        let mut name = format!("{}:{PITS}:{}", super::NAME, self.stones);
        if self.empty_capture {
            name.push_str(":empty-capture");
        }
        name
    }

    /// Reads the options after `kalah:`: `""` (standard), `6`, `6:S`, `6:S:empty-capture`.
    /// The error names the bad field.
    pub fn parse(options: &str) -> Result<KalahRules, String> {
        let mut rules = KalahRules::default();
        if options.trim().is_empty() {
            return Ok(rules);
        }
        if options.len() > 64 {
            return Err(format!(
                "kalah options are {} bytes long; expected pits:stones[:empty-capture] \
                 (e.g. 6:4)",
                options.len()
            ));
        }
        for (n, field) in options.split(':').enumerate() {
            let field = field.trim();
            match n {
                0 => {
                    if field != "6" {
                        return Err(format!(
                            "kalah pits '{field}': only 6 pits a side are played (kalah:6:S)"
                        ));
                    }
                }
                1 => {
                    rules.stones = field
                        .parse::<u8>()
                        .ok()
                        .filter(|s| (1..=MAX_STONES_PER_PIT).contains(s))
                        .filter(|_| field.bytes().all(|b| b.is_ascii_digit()))
                        .ok_or_else(|| {
                            format!(
                                "kalah stones '{field}': expected a number of stones a pit, \
                                 1..={MAX_STONES_PER_PIT}"
                            )
                        })?;
                }
                2 => {
                    if field != "empty-capture" {
                        return Err(format!(
                            "kalah option '{field}': the only rule option is empty-capture"
                        ));
                    }
                    rules.empty_capture = true;
                }
                _ => {
                    return Err(format!(
                        "kalah options '{options}': extra field '{field}'; expected \
                         pits:stones[:empty-capture]"
                    ));
                }
            }
        }
        Ok(rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_options_round_trip() {
        let cases = [
            ("", KalahRules::default(), "kalah"),
            ("6", KalahRules::default(), "kalah"),
            ("6:6", KalahRules::default(), "kalah"),
            (
                "6:4",
                KalahRules {
                    stones: 4,
                    empty_capture: false,
                },
                "kalah:6:4",
            ),
            (
                "6:4:empty-capture",
                KalahRules {
                    stones: 4,
                    empty_capture: true,
                },
                "kalah:6:4:empty-capture",
            ),
            (
                "6:6:empty-capture",
                KalahRules {
                    stones: 6,
                    empty_capture: true,
                },
                "kalah:6:6:empty-capture",
            ),
        ];
        for (options, rules, name) in cases {
            assert_eq!(KalahRules::parse(options), Ok(rules), "{options}");
            assert_eq!(rules.name(), name);
            let back = name.strip_prefix("kalah").unwrap();
            let back = back.strip_prefix(':').unwrap_or(back);
            assert_eq!(KalahRules::parse(back), Ok(rules));
        }
    }

    #[test]
    fn bad_options_name_the_field() {
        let err = |o: &str| KalahRules::parse(o).unwrap_err();
        assert!(err("8").contains("pits '8'"), "{}", err("8"));
        assert!(err("6:0").contains("stones '0'"));
        assert!(err("6:7").contains("stones '7'"));
        assert!(err("6:x").contains("stones 'x'"));
        assert!(err("6:+4").contains("stones '+4'"));
        assert!(err("6:").contains("stones ''"));
        assert!(err("6:4:steal").contains("option 'steal'"));
        assert!(err("6:4:empty-capture:x").contains("extra field 'x'"));
        assert!(err(&"6".repeat(100)).contains("bytes long"));
    }
}
