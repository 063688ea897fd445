//! `[[apps]]` of kind `web`: a browser loading pages from a server.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::units::{DurationSpec, SizeSpec};
use crate::time::{Bytes, Duration};

use super::common::zero_time;
use super::tcp::TcpSpec;

const fn ten() -> u32 {
    10
}
const fn six() -> u16 {
    6
}
const fn yes() -> bool {
    true
}
const fn request_350_b() -> SizeSpec {
    SizeSpec(Bytes(350))
}
const fn thirty_seconds() -> DurationSpec {
    DurationSpec(Duration::from_secs(30))
}
const fn parse_130_ms() -> DurationSpec {
    DurationSpec(Duration::from_ms(130))
}

/// Web browsing: the client (`from`) loads `pages` pages from the server (`to`) over
/// TCP, each a main object and then its embedded objects over up to `connections`
/// connections, with a reading time between pages. Reports each page's load time
/// (docs/web.md).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WebSpec {
    /// Unique name, used in reports and to name the client's random stream.
    /// Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// The client's host (the browser).
    pub from: String,
    /// The server's host.
    pub to: String,
    /// When the first page is asked for. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// No page is asked for at or after this instant. Default: none.
    #[serde(default)]
    pub stop: Option<DurationSpec>,
    /// Pages to load. Default 10.
    #[serde(default = "ten")]
    pub pages: u32,
    /// What a page is made of. Default 3GPP2 C.R1002-0's HTTP model.
    #[serde(default)]
    pub page: PageSpec,
    /// Most connections open to the server at once. Default 6 (the per-server limit of
    /// current browsers).
    #[serde(default = "six")]
    pub connections: u16,
    /// HTTP/1.1 persistent connections (true), or one connection per object, closed by
    /// the server after its response (false, HTTP/1.0). Default true.
    #[serde(default = "yes")]
    pub persistent: bool,
    /// Bytes of each request. Default 350 B (as ns-3's 3GPP HTTP model documents).
    #[serde(default = "request_350_b")]
    pub request_size: SizeSpec,
    /// Mean of the exponential reading time between a page and the next. Default 30 s
    /// (3GPP2 C.R1002-0).
    #[serde(default = "thirty_seconds")]
    pub think_time: DurationSpec,
    /// Mean of the exponential parsing time between a main object's arrival and the
    /// requests for its embedded objects. Default 0.13 s (3GPP2 C.R1002-0).
    #[serde(default = "parse_130_ms")]
    pub parse_time: DurationSpec,
    /// TCP settings of both ends. Default: every setting at its default, except Nagle's
    /// algorithm, off (TCP_NODELAY, as web servers and browsers set it).
    #[serde(default)]
    pub tcp: TcpSpec,
}

const fn main_mu() -> f64 {
    8.37
}
const fn main_sigma() -> f64 {
    1.37
}
const fn main_min() -> SizeSpec {
    SizeSpec(Bytes(100))
}
const fn two_mb() -> SizeSpec {
    SizeSpec(Bytes(2_000_000))
}
const fn embedded_mu() -> f64 {
    6.17
}
const fn embedded_sigma() -> f64 {
    2.36
}
const fn embedded_min() -> SizeSpec {
    SizeSpec(Bytes(50))
}
const fn count_alpha() -> f64 {
    1.1
}
const fn count_k() -> f64 {
    2.0
}
const fn count_m() -> f64 {
    55.0
}

/// What a page is made of.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", deny_unknown_fields)]
pub enum PageSpec {
    /// 3GPP2 C.R1002-0's HTTP traffic model: main and embedded object sizes truncated
    /// lognormal, the number of embedded objects truncated Pareto (capped at `count_m`,
    /// less `count_k`, whole objects). Every parameter defaults to the model's table.
    #[serde(rename = "3gpp2")]
    ThreeGpp2 {
        /// μ of the main object's ln(bytes). Default 8.37.
        #[serde(default = "main_mu")]
        main_mu: f64,
        /// σ of the main object's ln(bytes). Default 1.37.
        #[serde(default = "main_sigma")]
        main_sigma: f64,
        /// Smallest main object. Default 100 B.
        #[serde(default = "main_min")]
        main_min: SizeSpec,
        /// Largest main object. Default 2 MB.
        #[serde(default = "two_mb")]
        main_max: SizeSpec,
        /// μ of an embedded object's ln(bytes). Default 6.17.
        #[serde(default = "embedded_mu")]
        embedded_mu: f64,
        /// σ of an embedded object's ln(bytes). Default 2.36.
        #[serde(default = "embedded_sigma")]
        embedded_sigma: f64,
        /// Smallest embedded object. Default 50 B.
        #[serde(default = "embedded_min")]
        embedded_min: SizeSpec,
        /// Largest embedded object. Default 2 MB.
        #[serde(default = "two_mb")]
        embedded_max: SizeSpec,
        /// Pareto shape α of the number of embedded objects. Default 1.1.
        #[serde(default = "count_alpha")]
        count_alpha: f64,
        /// Pareto scale k. Default 2.
        #[serde(default = "count_k")]
        count_k: f64,
        /// Pareto cap m. Default 55 (at most 53 embedded objects).
        #[serde(default = "count_m")]
        count_m: f64,
    },
    /// Every page the same.
    #[serde(rename = "fixed")]
    Fixed {
        /// The main object's size.
        main: SizeSpec,
        /// The embedded objects' sizes, in the order they are asked for. Default none.
        #[serde(default)]
        embedded: Vec<SizeSpec>,
    },
}

impl Default for PageSpec {
    fn default() -> Self {
        PageSpec::ThreeGpp2 {
            main_mu: main_mu(),
            main_sigma: main_sigma(),
            main_min: main_min(),
            main_max: two_mb(),
            embedded_mu: embedded_mu(),
            embedded_sigma: embedded_sigma(),
            embedded_min: embedded_min(),
            embedded_max: two_mb(),
            count_alpha: count_alpha(),
            count_k: count_k(),
            count_m: count_m(),
        }
    }
}
