//! Reading a config's TOML document: its top-level names, each checked with its line
//! ([`top_level_lines`]), and its generic keys and learners' sections ([`ConfigSeed`]).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use super::{
    Budget, ConfigError, EvaluationSettings, SECTION_KEYS, SelfPlaySettings, TrainConfig,
    TrainingSettings, VALUE_KEYS,
};
use crate::learn::learner::LearnerSection;

/// The line (from 1) where each top-level key of `text` is first written; a key that
/// is neither a config key nor a learner's section is refused there, with its line.
/// (Refused later, by the deserializer, its error would point at the file's first line.)
pub(super) fn top_level_lines<'t>(
    text: &'t str,
    learners: &[&dyn LearnerSection],
) -> Result<BTreeMap<std::borrow::Cow<'t, str>, usize>, ConfigError> {
    // A syntax error is left to the deserializer, which quotes the line.
    let Ok(document) = toml::de::DeTable::parse(text) else {
        return Ok(BTreeMap::new());
    };
    let line_of = |at: usize| text[..at.min(text.len())].matches('\n').count() + 1;
    let mut lines = BTreeMap::new();
    for (key, value) in document.get_ref() {
        let name = key.get_ref();
        let line = line_of(key.span().start);
        let known = VALUE_KEYS.contains(&name.as_ref())
            || SECTION_KEYS.contains(&name.as_ref())
            || learners.iter().any(|l| l.name() == name);
        if !known {
            let sections: Vec<String> = SECTION_KEYS
                .iter()
                .copied()
                .chain(learners.iter().map(|l| l.name()))
                .map(|s| format!("[{s}]"))
                .collect();
            let keys = VALUE_KEYS.join("`, `");
            return Err(ConfigError(
                if matches!(value.get_ref(), toml::de::DeValue::Table(_)) {
                    format!(
                        "line {line}: unknown section [{name}]; expected one of {} (or a key \
                         `{keys}` before the first section)",
                        sections.join(", ")
                    )
                } else {
                    format!(
                        "line {line}: unknown key `{name}`; expected one of `{keys}` (or a \
                         section {})",
                        sections.join(", ")
                    )
                },
            ));
        }
        lines.insert(name.clone(), line);
    }
    Ok(lines)
}

/// Reads a config's top-level table: the generic keys as their types, the learners'
/// sections as tables, anything else refused with the key's place in the text.
pub(super) struct ConfigSeed<'a> {
    pub(super) learners: &'a [&'a dyn LearnerSection],
}

impl<'de> DeserializeSeed<'de> for ConfigSeed<'_> {
    type Value = TrainConfig;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<TrainConfig, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ConfigSeed<'_> {
    type Value = TrainConfig;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a training configuration")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TrainConfig, A::Error> {
        let mut learner = None;
        let mut model = None;
        let mut config = TrainConfig {
            learner: String::new(),
            game: None,
            seed: 1,
            model: PathBuf::new(),
            budget: Budget::default(),
            selfplay: SelfPlaySettings::default(),
            evaluation: EvaluationSettings::default(),
            training: TrainingSettings::default(),
            sections: BTreeMap::new(),
            settled: BTreeMap::new(),
        };
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "learner" => learner = Some(map.next_value::<String>()?),
                "game" => config.game = Some(map.next_value()?),
                "seed" => config.seed = map.next_value()?,
                "model" => model = Some(map.next_value::<PathBuf>()?),
                "budget" => config.budget = map.next_value()?,
                "selfplay" => config.selfplay = map.next_value()?,
                "evaluation" => config.evaluation = map.next_value()?,
                "training" => config.training = map.next_value()?,
                name if self.learners.iter().any(|l| l.name() == name) => {
                    let section: toml::Table = map.next_value()?;
                    config.sections.insert(key, section);
                }
                // Refused with its line by `top_level_lines` before.
                other => return Err(de::Error::custom(format!("unknown key `{other}`"))),
            }
        }
        config.learner = learner.ok_or_else(|| de::Error::missing_field("learner"))?;
        config.model = model.ok_or_else(|| de::Error::missing_field("model"))?;
        Ok(config)
    }
}
