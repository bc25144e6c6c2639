/**
 * Prevention measures, by stage and by food category, drawn from the actions Ley 1/2025 expects of
 * food businesses (prevention first, donation, then other recovery routes) and from common practice
 * in kitchens and shops. Each hotspot of a plan gets the measures of its stage and its category.
 */
export const MEASURES_BY_STAGE: Record<string, string[]> = {
  receiving: [
    'Check deliveries on arrival (temperature, dates, condition) and return what does not comply.',
    'Adjust order sizes and frequency to actual demand; agree smaller, more frequent deliveries.',
  ],
  storage: [
    'Rotate stock first-expired-first-out and label every container with its opening date.',
    'Log cold-room and fridge temperatures daily and act on deviations.',
    'Review stock levels weekly and move products close to their date to today’s menu or offers.',
  ],
  preparation: [
    'Standardise recipes and portions with written cards and scales at each station.',
    'Use trimmings and surplus in stocks, sauces, staff meals or daily specials.',
    'Prepare in batches matched to the forecast instead of the whole service at once.',
  ],
  service: [
    'Adapt portion sizes, offer half portions and let customers choose garnishes.',
    'Adjust buffet and display quantities to the hour of the day and refill in small trays.',
  ],
  post_service: [
    'Offer customers free, reusable or recyclable containers to take leftovers home (Ley 1/2025 obliges it in hospitality).',
    'Donate safe surplus the same day through an agreement with a food bank or social organisation.',
    'Review plate waste by dish each week and revise the dishes that come back most.',
  ],
  none: ['Record the stage of each loss (receiving, storage, preparation, service, post-service) to aim the measures where losses occur.'],
};

export const MEASURES_BY_CATEGORY: Record<string, string[]> = {
  bakery: ['Bake to the forecast in several batches; sell or donate day-old bread and use it in breadcrumbs or puddings.'],
  fruit_veg: ['Sell imperfect produce at a discount or use it in soups, juices and purées.'],
  dairy: ['Watch best-before dates daily and put products close to them on offer or donate them.'],
  meat: ['Portion and freeze surplus before its date; plan cuts to use the whole piece.'],
  fish: ['Buy to the daily forecast and freeze or cook surplus the same day.'],
  prepared_meals: ['Cool and portion surplus quickly for safe reuse or donation within its shelf life.'],
  cereals: ['Store dry goods airtight and rotate them; cook rice and pasta to order where possible.'],
  beverages: ['Rotate stock by date and avoid over-ordering seasonal drinks.'],
  others: ['Classify these losses by category to find the right measure.'],
};

export function measuresFor(stage: string, category: string): string[] {
  return [...(MEASURES_BY_STAGE[stage] ?? MEASURES_BY_STAGE.none ?? []), ...(MEASURES_BY_CATEGORY[category] ?? [])].slice(0, 4);
}
