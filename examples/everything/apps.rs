//! MCP Apps (the `io.modelcontextprotocol/ui` extension): `forecast` names a view that
//! hosts render beside its result; the view's Refresh button calls `forecast_refresh`, a
//! tool only the view may call.

use std::sync::atomic::{AtomicU64, Ordering};

use mcp_framework::{resource, tool};
use schemars::JsonSchema;
use serde::Serialize;

/// How many forecasts this process has made: the view shows it, so a refresh that reached
/// the server is visible.
static REVISION: AtomicU64 = AtomicU64::new(0);

/// One day of a forecast.
#[derive(Serialize, JsonSchema)]
struct Day {
    /// The weekday, abbreviated.
    day: String,
    /// The high, in °C.
    high: i32,
    /// The low, in °C.
    low: i32,
}

/// A few days of weather for one city.
#[derive(Serialize, JsonSchema)]
struct Forecast {
    /// The city.
    city: String,
    /// The days, from today.
    days: Vec<Day>,
    /// Which forecast of this server this is (1, 2, …).
    revision: u64,
}

/// A made-up forecast: the same city always gets the same temperatures.
fn make_forecast(city: String, days: u8) -> Forecast {
    const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let seed = city
        .bytes()
        .fold(17u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    let days = (0..u32::from(days.clamp(1, 7)))
        .map(|i| {
            let high = 12 + ((seed >> (i * 3)) % 14) as i32;
            Day {
                day: WEEKDAYS[i as usize].to_owned(),
                high,
                low: high - 4 - ((seed >> i) % 5) as i32,
            }
        })
        .collect();
    Forecast {
        city,
        days,
        revision: REVISION.fetch_add(1, Ordering::Relaxed) + 1,
    }
}

/// The forecast view: a bar per day, and a Refresh button. Its HTML is embedded from the
/// file, checked while compiling; the host renders it with its restrictive default CSP
/// (the view loads nothing from the network).
#[resource(
    uri = "ui://everything/forecast",
    name = "forecast-view",
    html = "views/forecast.html",
    ui(prefers_border = true)
)]
struct ForecastView;

/// The weather for the next days in `city`; hosts that render MCP Apps draw it as a chart.
#[tool(read_only, ui = ForecastView)]
fn forecast(
    /// The city.
    city: String,
    /// How many days (1 to 7, default 5).
    days: Option<u8>,
) -> Forecast {
    make_forecast(city, days.unwrap_or(5))
}

/// Makes the forecast for `city` again (the view's Refresh button; hidden from the model).
#[tool(read_only, ui = ForecastView, visibility = "app")]
fn forecast_refresh(
    /// The city.
    city: String,
) -> Forecast {
    make_forecast(city, 5)
}
